// ShadowMemory: the server's copy of the linear memory of a session instance that lives in a
// worker process (docs/security.md#worker-processes).
//
// SessionInstance::snapshot() hands the server a view of the whole memory, and the snapshot code
// reads any page of it (all of them when it has no write tracking to go by), so the server keeps
// an exact copy: it starts as the engine's base image (mapped copy-on-write, so an unchanged page
// costs nothing) or as zero, takes the pages a restore sends, and then the pages the worker
// reports changed (in 4 KiB blocks) after each step. The reservation is the engine's memory limit,
// untouched until written (MAP_NORESERVE).
//
// Thread-safety: none; one session instance owns it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <sandbox/engine.h>

namespace sandbox::workers {

// The bytes of an engine's base image as the server holds them, which a shadow starts from (a
// sealed memfd when one could be made). Owned by the SnapshotBase (its `owner`).
struct ServerBase {
  ServerBase() = default;
  ServerBase(const ServerBase&) = delete;
  ServerBase& operator=(const ServerBase&) = delete;
  ~ServerBase();

  std::size_t bytes = 0;               // base->pages * kWasmPageBytes
  int memfd = -1;                      // the image, or -1
  const std::uint8_t* view = nullptr;  // a read-only mapping of memfd, or fallback's data
  std::vector<std::uint8_t> fallback;  // the image when no memfd could be made
};

// Builds the server's copy of a base image from its pages (`nonzero` ascending, `bytes` holding
// kWasmPageBytes for each): a SnapshotBase whose owner is its ServerBase, with page hashes of
// this process (src/snapshot/page_hash.h).
std::shared_ptr<const SnapshotBase> make_server_base(std::string fingerprint, std::uint32_t pages,
                                                     const std::vector<std::uint32_t>& nonzero,
                                                     std::string_view bytes);

// The ServerBase of a base made by make_server_base.
inline const ServerBase* server_base_of(const SnapshotBase& base) {
  return static_cast<const ServerBase*>(base.owner.get());
}

class ShadowMemory {
 public:
  // Reserves room for `max_bytes` (rounded up to whole pages).
  explicit ShadowMemory(std::uint64_t max_bytes);
  ~ShadowMemory();
  ShadowMemory(const ShadowMemory&) = delete;
  ShadowMemory& operator=(const ShadowMemory&) = delete;

  std::uint32_t max_pages() const { return max_pages_; }
  std::uint32_t pages() const { return pages_; }
  // Starts over: `pages` pages, the first ones those of `base` (when given), the rest zero.
  // When the shadow already holds `base` mapped with as many of its pages, only the blocks
  // written since are put back (from the image, or zero), in place: memory that a shadow reused
  // for another instance made private stays so, and costs no page fault the next time
  // (docs/security.md#worker-processes). Nothing written before survives either way.
  void reset(const ServerBase* base, std::uint32_t pages);
  // Grows (new pages zero) or shrinks (the pages past the end are dropped).
  void resize(std::uint32_t pages);
  void write_page(std::uint32_t page, const void* bytes);
  // Block `block` (kChangeBlockBytes at block * kChangeBlockBytes, within pages()).
  void write_block(std::uint32_t block, const void* bytes);
  // Blocks `blocks` (ascending, within pages()) from `bytes`, which holds kChangeBlockBytes for
  // each, in order. Each run of adjacent blocks is made private in one system call before it is
  // copied (base/populate_write.h): a restore writes hundreds of blocks into memory that is
  // still the image's, or fresh.
  void write_blocks(std::span<const std::uint32_t> blocks, const std::uint8_t* bytes);
  std::span<const std::uint8_t> view() const {
    return {data_, std::size_t{pages_} * kWasmPageBytes};
  }

 private:
  // Makes [from, to) pages fresh zero memory.
  void clear(std::uint32_t from, std::uint32_t to);
  // Notes blocks [first, first + count) as written since the last reset.
  void mark(std::uint32_t first, std::uint32_t count);
  void forget_written();

  std::uint8_t* data_ = nullptr;
  std::uint32_t max_pages_ = 0;
  std::uint32_t pages_ = 0;
  // Pages [0, mapped_) map a base memfd copy-on-write.
  std::uint32_t mapped_ = 0;
  const ServerBase* base_ = nullptr;  // what [0, mapped_) maps
  // The blocks written since the last reset: one bit each, and the list of them.
  std::vector<std::uint64_t> written_bits_;
  std::vector<std::uint32_t> written_;
};

}  // namespace sandbox::workers

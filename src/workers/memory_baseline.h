// MemoryBaseline: a worker's record of what the server's copy of one session instance's memory
// holds (docs/security.md#worker-processes), so that after a step the worker sends only the
// 4 KiB blocks that were written or changed, not every 64 KiB page the step wrote.
//
// The record is one BlockHashes (src/snapshot/page_hash.h) per page: a page without an entry of
// its own holds the engine's image page (when the baseline started from the image) or zeros. The
// hashes are seeded per process, so they never leave the worker; the server keeps the bytes.
// A baseline that is not known (a boot without an image, a worker whose image differs from the
// server's) makes the next changes the whole memory, which the server takes as it is.
//
// When the engine names the 4 KiB blocks it wrote (SessionSnapshot::dirty_blocks), those are the
// changes, unhashed: a block written with the bytes it had is rare (2 % of Perl's, 0.3 % of
// Lua's in a step), the server hashes what it takes anyway, and hashing them here cost a Perl
// step about as much again. Such a block's hash is then unknown to the record, and it counts as
// changed until a step that hashes its page (one written without a block mask) learns it.
//
// Thread-safety: none; the session instance it belongs to is used by one call at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include <sandbox/engine.h>

#include "snapshot/block_runs.h"
#include "snapshot/page_hash.h"

namespace sandbox::workers {

// The block hashes of every page of an engine's image, made once per worker.
struct ImageBlockHashes {
  std::string fingerprint;
  std::vector<BlockHashes> pages;
};
std::shared_ptr<const ImageBlockHashes> hash_image_blocks(const SnapshotBase& base);

// The size of a block: the server's copy takes changes in blocks of this size.
inline constexpr std::size_t kChangeBlockBytes = kHashBlockBytes;
inline constexpr std::uint32_t kChangeBlocksPerPage = kBlocksPerPage;

class MemoryBaseline {
 public:
  // Unknown until start().
  MemoryBaseline() = default;

  // The server's copy is `pages` pages: `image`'s pages first (none: zero), then zeros.
  void start(std::shared_ptr<const ImageBlockHashes> image, std::uint32_t pages);
  // The server's copy of block `block` is now `bytes` (kChangeBlockBytes).
  void set_block(std::uint32_t block, const std::uint8_t* bytes);
  // The next changes are the whole memory.
  void forget() { known_ = false; }
  bool known() const { return known_; }

  // The blocks to send so that the server's copy becomes `memory`, ascending (block b holds
  // bytes [b * kChangeBlockBytes, (b + 1) * kChangeBlockBytes)), looking only at the pages in
  // `written` (any order, repeats allowed) when given and at every page otherwise. When
  // `written_blocks` has one entry per page of `written` (SessionSnapshot::dirty_blocks), the
  // blocks it sets are sent as they are; otherwise the blocks of each page looked at are hashed
  // and only those that differ from the server's copy are sent. nullopt when the server must
  // take the whole memory (the baseline is unknown, or the memory shrank). The baseline becomes
  // `memory` either way: the caller sends what this returns.
  std::optional<std::vector<std::uint32_t>> take_changes(
      std::span<const std::uint8_t> memory,
      const std::optional<std::vector<std::uint32_t>>& written,
      std::span<const std::uint16_t> written_blocks = {});

 private:
  // A page that differs from the default: its blocks' hashes, but for those set in `unhashed`
  // (sent without hashing, so what the server holds is not known here).
  struct Own {
    BlockHashes hashes;
    std::uint16_t unhashed = 0;
  };
  // The hashes the server's copy of `page` has now (garbage for its unhashed blocks).
  const BlockHashes& expected(std::uint32_t page) const;
  // The page's own record, made from what the server's copy holds when it has none.
  Own& own(std::uint32_t page);

  bool known_ = false;
  std::shared_ptr<const ImageBlockHashes> image_;
  std::uint32_t pages_ = 0;
  std::unordered_map<std::uint32_t, Own> own_;
};

}  // namespace sandbox::workers

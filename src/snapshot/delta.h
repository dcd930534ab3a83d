// Snapshots as deltas from the engine's image (docs/snapshot-format.md#delta-encoding).
//
// A record with a `base` stores, per chunk, the XOR of the memory with the image's pages
// (SnapshotBase, include/sandbox/engine.h; pages past the image and zero image pages count as
// zero), and has a chunk row only where that XOR is not all zero: a context that changed a few
// pages of its engine's image stores a few mostly-zero pages, which zstd shrinks to kilobytes.
// Deltas are written one page per chunk (kDeltaChunkPages); records written before that have
// 16-page chunks, and every function here takes the record's chunk size.
// A record without a base stores the memory itself (the older encoding, still read).
//
// SnapshotPageReader serves the pages of a stored snapshot of either encoding to an engine's
// restore, after checking the record and the chunk indices against the running engine's image
// (a hostile or foreign row is a SnapshotError, never a wrong memory).
//
// Thread-safety: functions are pure; a SnapshotPageReader is used by one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include <sandbox/engine.h>

#include "snapshot/chunk_codec.h"
#include "snapshot/chunks.h"
#include "snapshot/page_hash.h"
#include "snapshot/snapshot_record.h"

namespace sandbox {

// The most pages a stored record may declare: a Wasm 32-bit memory's 4 GiB.
inline constexpr std::uint32_t kMaxSnapshotMemoryPages = 65'536;

// Page `page` of the base, or null when it is all zero or past the base.
const std::uint8_t* base_page(const SnapshotBase& base, std::uint32_t page);

// Writes into `out` (chunk_pages x 64 KiB) the XOR of chunk `chunk` (of `chunk_pages` pages) of
// `memory` (zero past its end) with the base's pages. Returns true when any byte differs, i.e.
// the chunk needs a row.
bool delta_chunk(std::span<const std::uint8_t> memory, const SnapshotBase& base,
                 std::uint32_t chunk, std::span<std::uint8_t> out,
                 std::uint32_t chunk_pages = kChunkPages);

// XORs the base's pages into a decoded delta chunk (chunk_pages x 64 KiB) in place: it becomes
// memory.
void undelta_chunk(const SnapshotBase& base, std::uint32_t chunk, std::span<std::uint8_t> data,
                   std::uint32_t chunk_pages = kChunkPages);

// dst = a XOR b over `n` bytes, word-wise; true when any byte of the result is not zero. `dst`
// may be `a` or `b`.
bool xor_of(std::uint8_t* dst, const std::uint8_t* a, const std::uint8_t* b, std::size_t n);

// Checks a record before anything is decoded. Throws SnapshotError when it declares more than
// kMaxSnapshotMemoryPages or a chunk size that is not valid_chunk_pages; and for a delta record,
// when `base` is null, its fingerprint is not the record's, or the record's memory is smaller than
// the base (memory never shrinks).
void check_record_against_base(const SnapshotRecord& record, const SnapshotBase* base);

class SnapshotPageReader {
 public:
  // Borrows all three (they must outlive the reader). Runs check_record_against_base, and
  // throws SnapshotError for a delta record with a chunk row past its memory.
  SnapshotPageReader(const SnapshotRecord& record, const ChunkMap& chunks,
                     const SnapshotBase* base);
  // Shelves its decoder and chunk buffer.
  ~SnapshotPageReader();
  SnapshotPageReader(const SnapshotPageReader&) = delete;
  SnapshotPageReader& operator=(const SnapshotPageReader&) = delete;

  // Page `page`'s 64 KiB, or nullopt when it is all zero; valid until the next call. Throws
  // SnapshotError for a page past the record's memory or a chunk that does not decode to
  // exactly one chunk of the record's size. Sequential reads decode each chunk once.
  std::optional<std::span<const std::uint8_t>> page(std::uint32_t page);

  // The pages that may differ from the base (every page of a stored chunk of a delta record; with
  // one-page chunks exactly the stored pages), ascending; empty for an absolute record.
  std::vector<std::uint32_t> delta_pages() const;

 private:
  const SnapshotRecord& record_;
  const ChunkMap& chunks_;
  const SnapshotBase* base_;  // non-null only for a delta record
  // A decoder and one chunk's buffer, both shelved for the next reader when this one is done
  // (base/recycled_buffer.h).
  ChunkCodec decoder_;
  std::vector<std::uint8_t> buffer_;
  std::optional<std::uint32_t> decoded_;
};

}  // namespace sandbox

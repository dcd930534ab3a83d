// Chunked snapshot storage (docs/snapshot-format.md#chunks).
//
// Memory is stored in 1 MiB chunks of 16 pages: chunk(page) = page / 16. A chunk row exists
// only while at least one of its pages is non-zero. After each clean round the server hashes
// the memory, diffs against the previous hashes, and rewrites only the touched chunks:
//
//   hashes  = hash_memory(memory)
//   plan    = plan_chunks(diff_pages(previous, hashes), hashes)
//   for c in plan.upsert: store extract_chunk(memory, c)      (one transaction with
//   for c in plan.remove: delete chunk c                       the context row)
//   apply_chunk_plan(chunk_ids, plan); previous = hashes
//
// On restore, read_page(chunks, p) serves page p from the stored chunk map.
//
// Thread-safety: pure functions over caller-owned data.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "snapshot/page_hash.h"

namespace sandbox {

inline constexpr std::uint32_t kChunkPages = 16;
inline constexpr std::size_t kChunkBytes = kChunkPages * kSnapshotPageBytes;  // 1 MiB

// Pages per chunk of a delta record written now (docs/snapshot-format.md#delta-encoding): one,
// so a step that wrote a few pages XORs, compresses and stores those pages and nothing around
// them. Records of the memory itself keep kChunkPages (upstream's layout), and so do delta
// records written before a record carried its chunk size.
inline constexpr std::uint32_t kDeltaChunkPages = 1;

// A record's chunk size is a power of two from 1 to kChunkPages pages.
constexpr bool valid_chunk_pages(std::uint32_t pages) {
  return pages >= 1 && pages <= kChunkPages && (pages & (pages - 1)) == 0;
}

// Chunk index -> its (decoded) 1 MiB of memory.
using ChunkMap = std::map<std::uint32_t, std::vector<std::uint8_t>>;

constexpr std::uint32_t chunk_of_page(std::uint32_t page) { return page / kChunkPages; }

// The chunks to rewrite and to delete, both sorted ascending and disjoint.
struct ChunkPlan {
  std::vector<std::uint32_t> upsert;  // touched, and at least one page still non-zero
  std::vector<std::uint32_t> remove;  // touched, and all 16 pages zero now
};

// Every chunk holding a changed or removed page is touched; see ChunkPlan. Untouched chunks do
// not appear. `current` is the hash map the diff was computed against.
ChunkPlan plan_chunks(const PageDiff& diff, const PageHashes& current);

// Applies a plan to the set of chunk indices stored for a context.
void apply_chunk_plan(std::set<std::uint32_t>& chunk_ids, const ChunkPlan& plan);

// Exactly kChunkBytes copied from `memory` starting at page chunk * 16; bytes past the end of
// memory (a trailing partial chunk, or a chunk wholly beyond it) are zero.
std::vector<std::uint8_t> extract_chunk(std::span<const std::uint8_t> memory, std::uint32_t chunk);

// Page `page` of a stored snapshot: the 64 KiB at (page % 16) * 64 KiB of chunk page / 16, or
// nullopt when that chunk has no row (all its pages were zero). The view borrows from `chunks`.
// Throws SnapshotError when the chunk is too short to hold the page (corrupt storage).
std::optional<std::span<const std::uint8_t>> read_page(const ChunkMap& chunks, std::uint32_t page);

}  // namespace sandbox

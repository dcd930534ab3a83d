// Page hashing for snapshot change detection (docs/snapshot-format.md#page-hash).
//
// A page is 64 KiB of Wasm linear memory. An all-zero page has no hash; any other page hashes
// to XXH3-64 of the XXH3-64 hashes of its sixteen 4 KiB blocks, all seeded with a secret drawn
// once per process (kernel random). The block hashes tell a step which blocks of a rewritten
// page are as they were (src/snapshot/delta_frames.h). The hash is internal (it never leaves
// the process), so it only has to be deterministic within one process. The seed is what keeps a
// guest from crafting a page that collides with the page it replaces, which would leave its own
// change unsaved; upstream's 32-bit FNV-1a had no key and was ten times slower
// (docs/snapshot-format.md#page-hash).
//
// Thread-safety: pure functions over caller-owned data.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace sandbox {

inline constexpr std::size_t kSnapshotPageBytes = 65'536;

// Non-zero page index -> hash. Zero pages are absent. Ordered, so diffs come out sorted.
using PageHashes = std::map<std::uint32_t, std::uint64_t>;

// True when all `n` bytes at `p` are zero (word-wise, without branching on the data).
bool all_zero(const std::uint8_t* p, std::size_t n);

// The hash of one page, or nullopt when all of it is zero. Requires page.size() == 64 KiB.
std::optional<std::uint64_t> hash_page(std::span<const std::uint8_t, kSnapshotPageBytes> page);

// The blocks a page hash is made of: the host's page size.
inline constexpr std::size_t kHashBlockBytes = 4096;
inline constexpr std::size_t kBlocksPerPage = kSnapshotPageBytes / kHashBlockBytes;

// The seeded hash of each 4 KiB block of a page, in order.
using BlockHashes = std::array<std::uint64_t, kBlocksPerPage>;

// The seeded hash of one block, as hash_page puts it in BlockHashes.
std::uint64_t hash_block(std::span<const std::uint8_t, kHashBlockBytes> block);

// hash_page(page), and the hash of each of its blocks in `blocks` (set even when the page is
// all zero).
std::optional<std::uint64_t> hash_page(std::span<const std::uint8_t, kSnapshotPageBytes> page,
                                       BlockHashes& blocks);

// hash_block of an all-zero block.
std::uint64_t zero_block_hash();

// What hash_page gives a page whose block hashes are `blocks`, without its bytes: nullopt when
// every block hashes as an all-zero block (the seed is secret, so a guest cannot make a
// non-zero block that does). Lets a caller that knows which blocks were written rehash only
// those.
std::optional<std::uint64_t> hash_page_of_blocks(const BlockHashes& blocks);

// Rehashes into `blocks` (the block hashes of the page before) the blocks of `page` whose bit
// is set in `written` (bit b: block b), and returns the page's hash as hash_page would.
std::optional<std::uint64_t> rehash_blocks(std::span<const std::uint8_t, kSnapshotPageBytes> page,
                                           std::uint16_t written, BlockHashes& blocks);

// Hashes every page of `memory`. Throws std::invalid_argument when memory.size() is not a
// multiple of 64 KiB (Wasm memories always are).
PageHashes hash_memory(std::span<const std::uint8_t> memory);

// Pages that differ between two hash maps, both sorted ascending.
struct PageDiff {
  std::vector<std::uint32_t> changed;  // hash new or different in `current`
  std::vector<std::uint32_t> removed;  // hashed in `previous`, zero in `current`
};

PageDiff diff_pages(const PageHashes& previous, const PageHashes& current);

}  // namespace sandbox

// Page hashing for snapshot change detection (docs/snapshot-format.md#page-hash).
//
// A page is 64 KiB of Wasm linear memory. An all-zero page has no hash; any other page hashes
// to FNV-1a over its 16,384 little-endian 32-bit words (h = 0x811C9DC5; per word
// h = (h ^ w) * 0x01000193 mod 2^32). The hash is internal (it never leaves the server), so it
// only has to be deterministic; it is the upstream algorithm anyway.
//
// Thread-safety: pure functions over caller-owned data.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace sandbox {

inline constexpr std::size_t kSnapshotPageBytes = 65'536;

// Non-zero page index -> hash. Zero pages are absent. Ordered, so diffs come out sorted.
using PageHashes = std::map<std::uint32_t, std::uint32_t>;

// The hash of one page, or nullopt when all of it is zero. Requires page.size() == 64 KiB.
std::optional<std::uint32_t> hash_page(std::span<const std::uint8_t, kSnapshotPageBytes> page);

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

#include "snapshot/page_hash.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

#include <sys/random.h>

#include "base/fast_hash.h"

namespace sandbox {
namespace {

// The secret seed of every page hash of this process, drawn once.
std::uint64_t process_seed() {
  static const std::uint64_t seed = [] {
    std::uint64_t s = 0;
    if (getrandom(&s, sizeof s, 0) != static_cast<ssize_t>(sizeof s)) {
      throw std::system_error(errno, std::generic_category(), "getrandom for the page-hash seed");
    }
    return s;
  }();
  return seed;
}

}  // namespace

bool all_zero(const std::uint8_t* p, std::size_t n) {
  std::uint64_t any = 0;
  std::size_t i = 0;
  for (; i + sizeof(std::uint64_t) <= n; i += sizeof(std::uint64_t)) {
    std::uint64_t w;
    std::memcpy(&w, p + i, sizeof w);
    any |= w;
  }
  for (; i < n; ++i) any |= p[i];
  return any == 0;
}

std::optional<std::uint64_t> hash_page(std::span<const std::uint8_t, kSnapshotPageBytes> page) {
  if (all_zero(page.data(), page.size())) return std::nullopt;  // most pages of a memory
  BlockHashes blocks;
  return hash_page(page, blocks);
}

std::uint64_t hash_block(std::span<const std::uint8_t, kHashBlockBytes> block) {
  return sandbox_hash64(block.data(), block.size(), process_seed());
}

std::optional<std::uint64_t> hash_page(std::span<const std::uint8_t, kSnapshotPageBytes> page,
                                       BlockHashes& blocks) {
  // One-shot hashes only: no streaming state to initialise (an uninitialised XXH3 state once
  // hashed wrongly here, found by fuzz_replay_fuzz_snapshot).
  const std::uint64_t seed = process_seed();
  bool zero = true;
  for (std::size_t b = 0; b < kBlocksPerPage; ++b) {
    const std::uint8_t* block = page.data() + b * kHashBlockBytes;
    if (zero) zero = all_zero(block, kHashBlockBytes);
    blocks[b] = sandbox_hash64(block, kHashBlockBytes, seed);
  }
  if (zero) return std::nullopt;
  return sandbox_hash64(blocks.data(), sizeof blocks, seed);
}

std::uint64_t zero_block_hash() {
  static const std::uint64_t hash = [] {
    static const std::array<std::uint8_t, kHashBlockBytes> zero{};
    return hash_block(zero);
  }();
  return hash;
}

std::optional<std::uint64_t> hash_page_of_blocks(const BlockHashes& blocks) {
  const std::uint64_t zero = zero_block_hash();
  bool all = true;
  for (const std::uint64_t h : blocks) all = all && h == zero;
  if (all) return std::nullopt;
  return sandbox_hash64(blocks.data(), sizeof blocks, process_seed());
}

std::optional<std::uint64_t> rehash_blocks(std::span<const std::uint8_t, kSnapshotPageBytes> page,
                                           std::uint16_t written, BlockHashes& blocks) {
  const std::uint64_t seed = process_seed();
  for (std::size_t b = 0; b < kBlocksPerPage; ++b) {
    if ((written & (1U << b)) == 0) continue;
    blocks[b] = sandbox_hash64(page.data() + b * kHashBlockBytes, kHashBlockBytes, seed);
  }
  return hash_page_of_blocks(blocks);
}

PageHashes hash_memory(std::span<const std::uint8_t> memory) {
  if (memory.size() % kSnapshotPageBytes != 0) {
    throw std::invalid_argument("memory size " + std::to_string(memory.size()) +
                                " is not a multiple of 64 KiB");
  }
  PageHashes out;
  const std::size_t pages = memory.size() / kSnapshotPageBytes;
  for (std::size_t p = 0; p < pages; ++p) {
    const auto page = memory.subspan(p * kSnapshotPageBytes).first<kSnapshotPageBytes>();
    if (const auto h = hash_page(page))
      out.emplace_hint(out.end(), static_cast<std::uint32_t>(p), *h);
  }
  return out;
}

PageDiff diff_pages(const PageHashes& previous, const PageHashes& current) {
  PageDiff diff;
  for (const auto& [page, hash] : current) {
    const auto it = previous.find(page);
    if (it == previous.end() || it->second != hash) diff.changed.push_back(page);
  }
  for (const auto& [page, hash] : previous) {
    if (!current.contains(page)) diff.removed.push_back(page);
  }
  return diff;
}

}  // namespace sandbox

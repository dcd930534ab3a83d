#include "snapshot/page_hash.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include <gtest/gtest.h>

namespace sandbox {
namespace {

std::vector<std::uint8_t> pages(std::size_t n) {
  return std::vector<std::uint8_t>(n * kSnapshotPageBytes, 0);
}

std::span<const std::uint8_t, kSnapshotPageBytes> page_of(const std::vector<std::uint8_t>& mem,
                                                          std::size_t p) {
  return std::span<const std::uint8_t>(mem)
      .subspan(p * kSnapshotPageBytes)
      .first<kSnapshotPageBytes>();
}

// The hash is seeded per process (a secret), so no value is fixed: what holds is that zero
// pages have none, equal pages hash alike, and any one changed bit changes the hash.
TEST(PageHash, ZeroPagesHaveNoHashAndEveryBitCounts) {
  auto mem = pages(3);
  for (std::size_t i = 0; i < kSnapshotPageBytes; ++i) mem[i] = static_cast<std::uint8_t>(i);
  mem[2 * kSnapshotPageBytes] = 1;
  EXPECT_EQ(hash_page(page_of(mem, 1)), std::nullopt);
  ASSERT_TRUE(hash_page(page_of(mem, 0)));
  ASSERT_TRUE(hash_page(page_of(mem, 2)));
  EXPECT_NE(hash_page(page_of(mem, 0)), hash_page(page_of(mem, 2)));
  auto last = pages(1);
  last.back() = 1;
  ASSERT_TRUE(hash_page(page_of(last, 0)));  // a non-zero byte at the very end counts
  std::set<std::uint64_t> seen{*hash_page(page_of(mem, 0))};
  for (const std::size_t at : {std::size_t{0}, std::size_t{4095}, kSnapshotPageBytes - 1}) {
    for (int bit = 0; bit < 8; bit += 7) {
      auto flipped = mem;
      flipped[at] ^= static_cast<std::uint8_t>(1u << bit);
      EXPECT_TRUE(seen.insert(*hash_page(page_of(flipped, 0))).second) << at << " " << bit;
    }
  }
}

// The block hashes a step uses to find the 4 KiB blocks it changed (delta_frames.h): one per
// block, changed exactly where a byte changed, the same for equal blocks.
TEST(PageHash, BlockHashesChangeOnlyWithTheirBlock) {
  auto mem = pages(1);
  for (std::size_t i = 0; i < kSnapshotPageBytes; ++i) mem[i] = static_cast<std::uint8_t>(i / 3);
  BlockHashes before{};
  const auto h = hash_page(page_of(mem, 0), before);
  EXPECT_EQ(h, hash_page(page_of(mem, 0)));
  mem[5 * kHashBlockBytes + 17] ^= 1;
  BlockHashes after{};
  const auto changed = hash_page(page_of(mem, 0), after);
  EXPECT_NE(changed, h);
  for (std::size_t b = 0; b < kBlocksPerPage; ++b) {
    EXPECT_EQ(before[b] == after[b], b != 5) << b;
  }
  // Zero blocks hash alike (also in an all-zero page, which has no page hash).
  const auto zero = pages(1);
  BlockHashes zeros{};
  EXPECT_EQ(hash_page(page_of(zero, 0), zeros), std::nullopt);
  for (std::size_t b = 1; b < kBlocksPerPage; ++b) EXPECT_EQ(zeros[b], zeros[0]);
}

// hash_block is the hash hash_page gives each block: a worker's baseline mixes the two
// (src/workers/memory_baseline.h).
TEST(PageHash, HashBlockIsTheBlockHashOfHashPage) {
  auto mem = pages(1);
  for (std::size_t i = 0; i < kSnapshotPageBytes; ++i) mem[i] = static_cast<std::uint8_t>(i % 251);
  BlockHashes blocks{};
  hash_page(page_of(mem, 0), blocks);
  for (std::size_t b = 0; b < kBlocksPerPage; ++b) {
    EXPECT_EQ(hash_block(std::span<const std::uint8_t, kHashBlockBytes>(
                  mem.data() + b * kHashBlockBytes, kHashBlockBytes)),
              blocks[b])
        << b;
  }
}

// A page hash made from block hashes (the written blocks rehashed over the hashes from before)
// is the hash of the bytes, a page made all zero again included.
TEST(PageHash, RehashingTheWrittenBlocksGivesTheHashOfTheBytes) {
  auto mem = pages(1);
  BlockHashes blocks{};
  EXPECT_EQ(hash_page(page_of(mem, 0), blocks), std::nullopt);
  EXPECT_EQ(hash_page_of_blocks(blocks), std::nullopt);
  EXPECT_EQ(blocks[3], zero_block_hash());
  std::uint32_t seed = 7;
  for (int round = 0; round < 50; ++round) {
    std::uint16_t written = 0;
    for (int w = 0; w < 1 + round % 5; ++w) {
      seed = seed * 1'103'515'245U + 12'345U;
      const std::size_t at = seed % kSnapshotPageBytes;
      mem[at] = round % 7 == 6 ? 0 : static_cast<std::uint8_t>(seed >> 24);
      written = static_cast<std::uint16_t>(written | (1U << (at / kHashBlockBytes)));
    }
    if (round == 30) {  // all zero again: written blocks cleared
      for (std::size_t b = 0; b < kBlocksPerPage; ++b) {
        if (!all_zero(mem.data() + b * kHashBlockBytes, kHashBlockBytes)) {
          std::fill_n(mem.begin() + static_cast<std::ptrdiff_t>(b * kHashBlockBytes),
                      kHashBlockBytes, 0);
          written = static_cast<std::uint16_t>(written | (1U << b));
        }
      }
    }
    const auto got = rehash_blocks(page_of(mem, 0), written, blocks);
    BlockHashes fresh{};
    EXPECT_EQ(got, hash_page(page_of(mem, 0), fresh)) << "round " << round;
    EXPECT_EQ(blocks, fresh) << "round " << round;
    EXPECT_EQ(got, hash_page_of_blocks(blocks)) << "round " << round;
  }
}

TEST(PageHash, HashMemorySkipsZeroPagesAndIsDeterministic) {
  auto mem = pages(40);
  mem[5 * kSnapshotPageBytes + 17] = 9;
  mem[39 * kSnapshotPageBytes + kSnapshotPageBytes - 1] = 1;
  const PageHashes a = hash_memory(mem);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_TRUE(a.contains(5));
  EXPECT_TRUE(a.contains(39));
  EXPECT_EQ(hash_memory(mem), a);
  // Same content at another page gives the same hash (position-independent).
  auto moved = pages(40);
  moved[7 * kSnapshotPageBytes + 17] = 9;
  EXPECT_EQ(hash_memory(moved).at(7), a.at(5));
  EXPECT_TRUE(hash_memory({}).empty());
}

TEST(PageHash, RejectsPartialPages) {
  const std::vector<std::uint8_t> odd(kSnapshotPageBytes + 1, 0);
  EXPECT_THROW(hash_memory(odd), std::invalid_argument);
}

TEST(PageHash, DiffFindsChangedAndRemoved) {
  const PageHashes prev{{1, 10}, {2, 20}, {3, 30}};
  const PageHashes cur{{2, 20}, {3, 31}, {9, 90}};
  const PageDiff d = diff_pages(prev, cur);
  EXPECT_EQ(d.changed, (std::vector<std::uint32_t>{3, 9}));
  EXPECT_EQ(d.removed, (std::vector<std::uint32_t>{1}));
  const PageDiff none = diff_pages(cur, cur);
  EXPECT_TRUE(none.changed.empty());
  EXPECT_TRUE(none.removed.empty());
}

}  // namespace
}  // namespace sandbox

// The chunk helpers of docs/snapshot-format.md#chunks, case by case.
#include "snapshot/chunks.h"

#include <gtest/gtest.h>

#include "snapshot/snapshot_error.h"

namespace sandbox {
namespace {

std::vector<std::uint8_t> memory_pages(std::size_t n) {
  return std::vector<std::uint8_t>(n * kSnapshotPageBytes, 0);
}

void fill_page(std::vector<std::uint8_t>& mem, std::size_t page, std::uint8_t value) {
  std::fill_n(mem.begin() + static_cast<std::ptrdiff_t>(page * kSnapshotPageBytes),
              kSnapshotPageBytes, value);
}

TEST(Chunks, PageToChunk) {
  EXPECT_EQ(chunk_of_page(0), 0u);
  EXPECT_EQ(chunk_of_page(15), 0u);
  EXPECT_EQ(chunk_of_page(16), 1u);
  EXPECT_EQ(chunk_of_page(33), 2u);
  EXPECT_EQ(kChunkBytes, 1'048'576u);
}

TEST(Chunks, FullChunkCopyIsIndependentOfMemory) {
  auto mem = memory_pages(48);
  for (std::size_t i = 0; i < mem.size(); ++i) mem[i] = static_cast<std::uint8_t>(i * 7 + 3);
  const auto chunk = extract_chunk(mem, 1);
  ASSERT_EQ(chunk.size(), kChunkBytes);
  EXPECT_TRUE(std::equal(chunk.begin(), chunk.end(), mem.begin() + kChunkBytes));
  const auto before = chunk;
  std::fill(mem.begin(), mem.end(), 0);  // the copy does not alias memory
  EXPECT_EQ(chunk, before);
}

TEST(Chunks, TrailingPartialChunkIsZeroFilled) {
  auto mem = memory_pages(20);  // chunk 1 holds pages 16-19 only
  fill_page(mem, 19, 0xAB);
  const auto chunk = extract_chunk(mem, 1);
  ASSERT_EQ(chunk.size(), kChunkBytes);
  for (std::size_t i = 0; i < kChunkBytes; ++i) {
    const bool in_page_3 = i >= 3 * kSnapshotPageBytes && i < 4 * kSnapshotPageBytes;
    ASSERT_EQ(chunk[i], in_page_3 ? 0xAB : 0) << i;
  }
}

TEST(Chunks, ChunkBeyondMemoryIsAllZero) {
  auto mem = memory_pages(16);
  fill_page(mem, 0, 1);
  const auto chunk = extract_chunk(mem, 5);
  ASSERT_EQ(chunk.size(), kChunkBytes);
  EXPECT_TRUE(std::all_of(chunk.begin(), chunk.end(), [](auto b) { return b == 0; }));
}

TEST(Chunks, FirstSnapshotUpsertsEveryChunkWithANonZeroPage) {
  auto mem = memory_pages(80);
  fill_page(mem, 0, 1);
  fill_page(mem, 15, 1);
  fill_page(mem, 40, 2);
  fill_page(mem, 79, 3);
  const PageHashes hashes = hash_memory(mem);
  const ChunkPlan plan = plan_chunks(diff_pages({}, hashes), hashes);
  EXPECT_EQ(plan.upsert, (std::vector<std::uint32_t>{0, 2, 4}));
  EXPECT_TRUE(plan.remove.empty());
}

TEST(Chunks, RemovedPageInsideAStillNonZeroChunkIsAnUpsert) {
  auto mem = memory_pages(32);
  fill_page(mem, 17, 1);
  fill_page(mem, 18, 1);
  const PageHashes before = hash_memory(mem);
  fill_page(mem, 18, 0);
  const PageHashes after = hash_memory(mem);
  const PageDiff diff = diff_pages(before, after);
  EXPECT_TRUE(diff.changed.empty());
  EXPECT_EQ(diff.removed, (std::vector<std::uint32_t>{18}));
  const ChunkPlan plan = plan_chunks(diff, after);
  EXPECT_EQ(plan.upsert, (std::vector<std::uint32_t>{1}));
  EXPECT_TRUE(plan.remove.empty());
}

TEST(Chunks, AllZeroChunkIsDeleted) {
  auto mem = memory_pages(64);
  fill_page(mem, 3, 1);
  fill_page(mem, 35, 1);
  fill_page(mem, 36, 1);
  const PageHashes before = hash_memory(mem);
  std::set<std::uint32_t> ids;
  apply_chunk_plan(ids, plan_chunks(diff_pages({}, before), before));
  EXPECT_EQ(ids, (std::set<std::uint32_t>{0, 2}));

  fill_page(mem, 35, 0);
  fill_page(mem, 36, 0);
  fill_page(mem, 50, 4);  // a new chunk appears at the same time
  fill_page(mem, 3, 2);   // and chunk 0 changes
  const PageHashes after = hash_memory(mem);
  const ChunkPlan plan = plan_chunks(diff_pages(before, after), after);
  EXPECT_EQ(plan.upsert, (std::vector<std::uint32_t>{0, 3}));
  EXPECT_EQ(plan.remove, (std::vector<std::uint32_t>{2}));
  apply_chunk_plan(ids, plan);
  EXPECT_EQ(ids, (std::set<std::uint32_t>{0, 3}));
}

TEST(Chunks, UnchangedMemoryAndZeroGrowthWriteNothing) {
  auto mem = memory_pages(16);
  fill_page(mem, 2, 1);
  const PageHashes before = hash_memory(mem);
  mem.resize(64 * kSnapshotPageBytes, 0);  // memory grew, all zero
  const PageHashes after = hash_memory(mem);
  const ChunkPlan plan = plan_chunks(diff_pages(before, after), after);
  EXPECT_TRUE(plan.upsert.empty());
  EXPECT_TRUE(plan.remove.empty());
}

TEST(Chunks, ReadPageServesSlicesOfChunks) {
  auto mem = memory_pages(40);
  for (std::size_t p = 0; p < 40; ++p) {
    if (p % 16 != 4) fill_page(mem, p, static_cast<std::uint8_t>(p + 1));
  }
  fill_page(mem, 16 + 4, 0);
  ChunkMap chunks;
  chunks[0] = extract_chunk(mem, 0);
  chunks[2] = extract_chunk(mem, 2);  // chunk 1 "has no row"
  for (std::uint32_t p = 0; p < 48; ++p) {
    const auto page = read_page(chunks, p);
    if (p >= 16 && p < 32) {
      EXPECT_FALSE(page.has_value()) << p;
      continue;
    }
    ASSERT_TRUE(page.has_value()) << p;
    ASSERT_EQ(page->size(), kSnapshotPageBytes);
    const std::uint8_t want = (p >= 40 || p % 16 == 4) ? 0 : static_cast<std::uint8_t>(p + 1);
    EXPECT_EQ((*page)[0], want) << p;
    EXPECT_EQ((*page)[kSnapshotPageBytes - 1], want) << p;
  }
}

TEST(Chunks, ShortStoredChunkIsAnError) {
  ChunkMap chunks;
  chunks[0] = std::vector<std::uint8_t>(kSnapshotPageBytes * 2, 1);
  EXPECT_TRUE(read_page(chunks, 1).has_value());
  EXPECT_THROW(read_page(chunks, 2), SnapshotError);
}

// Round trip: restoring every page served by read_page reproduces the memory exactly.
TEST(Chunks, SnapshotRoundTripRebuildsMemory) {
  auto mem = memory_pages(37);
  for (std::size_t i = 0; i < mem.size(); i += 4099) mem[i] = static_cast<std::uint8_t>(i >> 8);
  fill_page(mem, 20, 0);
  const PageHashes hashes = hash_memory(mem);
  const ChunkPlan plan = plan_chunks(diff_pages({}, hashes), hashes);
  ChunkMap stored;
  for (const auto c : plan.upsert) stored[c] = extract_chunk(mem, c);
  std::vector<std::uint8_t> restored(mem.size(), 0);
  for (std::uint32_t p = 0; p < 37; ++p) {
    if (const auto page = read_page(stored, p)) {
      std::copy(page->begin(), page->end(),
                restored.begin() + static_cast<std::ptrdiff_t>(p * kSnapshotPageBytes));
    }
  }
  EXPECT_EQ(restored, mem);
  EXPECT_EQ(hash_memory(restored), hashes);
}

}  // namespace
}  // namespace sandbox

#include "snapshot/delta_frames.h"

#include <cstring>
#include <initializer_list>

#include <gtest/gtest.h>

namespace sandbox {
namespace {

// A page of memory, hashed as a step hashes it. Against an image page of zeros (null), its
// delta is the page itself.
struct TestPage {
  std::vector<std::uint8_t> bytes = std::vector<std::uint8_t>(kSnapshotPageBytes);

  TestPage() {
    // Dense, hard to compress: what a page that drifted from the image looks like.
    std::uint32_t x = 12345;
    for (auto& b : bytes) {
      x = x * 1103515245u + 12345u;
      b = static_cast<std::uint8_t>(x >> 16);
    }
  }
  std::span<const std::uint8_t, kSnapshotPageBytes> view() const {
    return std::span<const std::uint8_t, kSnapshotPageBytes>(bytes.data(), bytes.size());
  }
  BlockHashes blocks() const {
    BlockHashes out{};
    (void)hash_page(view(), out);
    return out;
  }
  void touch(std::size_t block) { bytes[block * kHashBlockBytes + 100] ^= 0x5a; }
};

std::vector<std::uint8_t> decoded(const std::vector<std::uint8_t>& row) {
  return decode_chunk(Codec::kZstd, row, kSnapshotPageBytes);
}

TEST(DeltaFrames, AStepCompressesOnlyTheBlocksItChanged) {
  DeltaFrames frames;
  ChunkCodec codec;
  TestPage page;
  // A step of page 7: `touched` blocks change, the page is written, its row must decode to it.
  const auto write = [&](std::initializer_list<std::size_t> touched) {
    for (const std::size_t block : touched) page.touch(block);
    auto row = frames.encode(7, page.blocks(), page.view(), nullptr, codec);
    EXPECT_EQ(decoded(row), page.bytes);
    return row;
  };
  // First write: one frame of the whole page.
  (void)write({});
  EXPECT_EQ(frames.compressed_blocks(), kBlocksPerPage);
  EXPECT_EQ(frames.frames_of(7), 1u);
  frames.end_step();

  // Blocks 3 and 4 change: the one frame is compressed again, split into [0,3) [3,5) [5,16).
  (void)write({3, 4});
  EXPECT_EQ(frames.compressed_blocks(), 2 * kBlocksPerPage);
  EXPECT_EQ(frames.frames_of(7), 3u);
  frames.end_step();

  // They change again: only those two blocks are compressed.
  (void)write({3, 4});
  EXPECT_EQ(frames.compressed_blocks(), 2 * kBlocksPerPage + 2);
  frames.end_step();

  // Block 10 changes: its frame [5,16) splits into [5,10) [10,11) [11,16).
  const auto row = write({10});
  EXPECT_EQ(frames.compressed_blocks(), 2 * kBlocksPerPage + 2 + 11);
  EXPECT_EQ(frames.frames_of(7), 5u);
  frames.end_step();

  // Written as it is: nothing is compressed, and the row is the same.
  EXPECT_EQ(write({}), row);
  EXPECT_EQ(frames.compressed_blocks(), 2 * kBlocksPerPage + 2 + 11);
}

// Against a real image page, a row decodes to the XOR, also after frames were reused.
TEST(DeltaFrames, RowsAreTheXorWithTheImagePage) {
  DeltaFrames frames;
  ChunkCodec codec;
  TestPage image;
  TestPage page;
  for (std::size_t i = 0; i < page.bytes.size(); i += 3) page.bytes[i] = image.bytes[i];
  const auto xor_now = [&] {
    std::vector<std::uint8_t> x(kSnapshotPageBytes);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = page.bytes[i] ^ image.bytes[i];
    return x;
  };
  EXPECT_EQ(decoded(frames.encode(3, page.blocks(), page.view(), image.bytes.data(), codec)),
            xor_now());
  for (const std::size_t block : {0, 15, 0, 7}) {
    frames.end_step();
    page.touch(block);
    EXPECT_EQ(decoded(frames.encode(3, page.blocks(), page.view(), image.bytes.data(), codec)),
              xor_now())
        << block;
  }
}

TEST(DeltaFrames, PagesNotWrittenLatelyAndClearedOnesStartAgain) {
  DeltaFrames frames;
  ChunkCodec codec;
  TestPage page;
  (void)frames.encode(1, page.blocks(), page.view(), nullptr, codec);
  EXPECT_GT(frames.bytes(), 0u);
  // Kept while written in one of the last kDeltaFrameSteps steps (its own included).
  for (std::uint64_t s = 0; s < kDeltaFrameSteps; ++s) {
    frames.end_step();
    EXPECT_EQ(frames.frames_of(1), 1u) << s;
  }
  frames.end_step();
  EXPECT_EQ(frames.frames_of(1), 0u);
  EXPECT_EQ(frames.bytes(), 0u);

  (void)frames.encode(1, page.blocks(), page.view(), nullptr, codec);
  frames.clear();
  const std::uint64_t before = frames.compressed_blocks();
  const auto row = frames.encode(1, page.blocks(), page.view(), nullptr, codec);
  EXPECT_EQ(frames.compressed_blocks(), before + kBlocksPerPage);  // nothing reused
  EXPECT_EQ(decoded(row), page.bytes);
}

TEST(DeltaFrames, KeepsAtMostTheByteLimit) {
  DeltaFrames frames;
  ChunkCodec codec;
  TestPage page;  // incompressible: each page keeps about 64 KiB
  const auto pages = static_cast<std::uint32_t>(kMaxDeltaFrameBytes / kSnapshotPageBytes + 2);
  for (std::uint32_t p = 0; p < pages; ++p) {
    page.touch(p % kBlocksPerPage);
    (void)frames.encode(p, page.blocks(), page.view(), nullptr, codec);
    if (p % 2 == 1) frames.end_step();
  }
  frames.end_step();
  EXPECT_LE(frames.bytes(), kMaxDeltaFrameBytes);
  EXPECT_EQ(frames.frames_of(0), 0u);  // the oldest go first
}

}  // namespace
}  // namespace sandbox

#include "snapshot/chunk_codec.h"

#include <gtest/gtest.h>

#include "snapshot/chunks.h"
#include "snapshot/snapshot_error.h"

namespace sandbox {
namespace {

// Something like interpreter memory: runs of zeros, small integers, repeated structures.
std::vector<std::uint8_t> sample_chunk() {
  std::vector<std::uint8_t> c(kChunkBytes, 0);
  std::uint32_t x = 12345;
  for (std::size_t i = 0; i < c.size() / 2; i += 8) {
    x = x * 1103515245u + 12345u;
    c[i] = static_cast<std::uint8_t>(x >> 24);
    c[i + 1] = static_cast<std::uint8_t>(i >> 12);
  }
  return c;
}

TEST(ChunkCodec, Names) {
  EXPECT_EQ(codec_name(Codec::kZstd), "zstd");
  EXPECT_EQ(codec_name(Codec::kRaw), "raw");
  EXPECT_EQ(parse_codec("zstd"), Codec::kZstd);
  EXPECT_EQ(parse_codec("raw"), Codec::kRaw);
  EXPECT_EQ(parse_codec("gzip"), std::nullopt);
}

TEST(ChunkCodec, ZstdRoundTripAndCompresses) {
  const auto raw = sample_chunk();
  ChunkCodec codec;
  const auto stored = codec.encode(raw);
  EXPECT_LT(stored.size(), raw.size() / 2);
  EXPECT_EQ(codec.decode(Codec::kZstd, stored, kChunkBytes), raw);
  // The context is reusable.
  const std::vector<std::uint8_t> zeros(kChunkBytes, 0);
  const auto z = codec.encode(zeros);
  EXPECT_LT(z.size(), 1024u);
  EXPECT_EQ(codec.decode(Codec::kZstd, z, kChunkBytes), zeros);
  // One-shot forms agree.
  EXPECT_EQ(decode_chunk(Codec::kZstd, encode_chunk(Codec::kZstd, raw), kChunkBytes), raw);
}

TEST(ChunkCodec, RawPassesThroughAndIsSizeChecked) {
  const auto raw = sample_chunk();
  ChunkCodec codec(Codec::kRaw);
  EXPECT_EQ(codec.encode(raw), raw);
  EXPECT_EQ(codec.decode(Codec::kRaw, raw, kChunkBytes), raw);
  EXPECT_THROW(codec.decode(Codec::kRaw, raw, kChunkBytes - 1), SnapshotError);
  // A zstd codec still reads raw chunks (a record without codec).
  EXPECT_EQ(ChunkCodec().decode(Codec::kRaw, raw, kChunkBytes), raw);
}

TEST(ChunkCodec, CorruptOrMisSizedDataIsASnapshotError) {
  const auto raw = sample_chunk();
  const auto stored = encode_chunk(Codec::kZstd, raw);
  EXPECT_THROW(decode_chunk(Codec::kZstd, stored, kChunkBytes / 2), SnapshotError);
  EXPECT_THROW(decode_chunk(Codec::kZstd, stored, kChunkBytes * 2), SnapshotError);
  const std::vector<std::uint8_t> garbage{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  EXPECT_THROW(decode_chunk(Codec::kZstd, garbage, kChunkBytes), SnapshotError);
  auto truncated = stored;
  truncated.resize(truncated.size() / 2);
  EXPECT_THROW(decode_chunk(Codec::kZstd, truncated, kChunkBytes), SnapshotError);
  auto flipped = stored;
  flipped[flipped.size() / 2] ^= 0xFF;
  try {
    // A flipped byte either fails to decode or (no checksum) decodes to other bytes.
    EXPECT_NE(decode_chunk(Codec::kZstd, flipped, kChunkBytes), raw);
  } catch (const SnapshotError&) {
  }
  EXPECT_THROW(decode_chunk(Codec::kZstd, {}, kChunkBytes), SnapshotError);
}

}  // namespace
}  // namespace sandbox

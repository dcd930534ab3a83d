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

// A zstd frame without a content size whose header declares a 2^window_log window, holding
// `content` in raw blocks of 128 KiB (RFC 8878, section 3.1.1).
std::vector<std::uint8_t> frame_declaring_window(int window_log,
                                                 const std::vector<std::uint8_t>& content) {
  std::vector<std::uint8_t> f{0x28,
                              0xB5,
                              0x2F,
                              0xFD,  // magic
                              0x00,  // no content size, not single segment
                              static_cast<std::uint8_t>((window_log - 10) << 3)};
  constexpr std::size_t kBlock = 128 * 1024;
  for (std::size_t at = 0; at < content.size(); at += kBlock) {
    const std::size_t n = std::min(kBlock, content.size() - at);
    const std::uint32_t header =
        static_cast<std::uint32_t>(n << 3) | (at + n == content.size() ? 1u : 0u);  // raw
    for (int i = 0; i < 3; ++i) f.push_back(static_cast<std::uint8_t>(header >> (8 * i)));
    f.insert(f.end(), content.begin() + static_cast<std::ptrdiff_t>(at),
             content.begin() + static_cast<std::ptrdiff_t>(at + n));
  }
  return f;
}

TEST(ChunkCodec, AFrameDeclaringAWindowLargerThanTheChunkIsRefused) {
  const auto raw = sample_chunk();
  // The same bytes under a window of the chunk's size decode: the crafted frame is well formed.
  EXPECT_EQ(decode_chunk(Codec::kZstd, frame_declaring_window(20, raw), kChunkBytes), raw);
  // 128 MiB (zstd's default maximum) would be allocated before a byte is decoded.
  EXPECT_THROW(decode_chunk(Codec::kZstd, frame_declaring_window(27, raw), kChunkBytes),
               SnapshotError);
  ChunkCodec codec;
  EXPECT_THROW(codec.decode(Codec::kZstd, frame_declaring_window(21, raw), kChunkBytes),
               SnapshotError);
  // The context stays usable for legitimate chunks.
  EXPECT_EQ(codec.decode(Codec::kZstd, encode_chunk(Codec::kZstd, raw), kChunkBytes), raw);
  EXPECT_EQ(zstd_window_log_max(kChunkBytes), 20);
  EXPECT_EQ(zstd_window_log_max(1), kMinZstdWindowLog);
}

// A chunk may be several frames one after another (src/snapshot/delta_frames.h): they decode
// into one buffer, and together they must hold exactly the chunk.
TEST(ChunkCodec, FramesOneAfterAnotherDecodeAsOneChunk) {
  const auto raw = sample_chunk();
  const auto half = static_cast<std::ptrdiff_t>(raw.size() / 2);
  ChunkCodec codec;
  std::vector<std::uint8_t> stored;
  codec.encode_append(std::span(raw).first(static_cast<std::size_t>(half)), stored);
  const std::size_t first_frame = stored.size();
  codec.encode_append(std::span(raw).subspan(static_cast<std::size_t>(half)), stored);
  EXPECT_GT(stored.size(), first_frame);
  EXPECT_EQ(decode_chunk(Codec::kZstd, stored, kChunkBytes), raw);
  EXPECT_EQ(codec.decode(Codec::kZstd, stored, kChunkBytes), raw);
  // Sixteen frames, one of them a window-limited frame written by hand.
  std::vector<std::uint8_t> many;
  const std::size_t part = raw.size() / 16;
  for (std::size_t at = 0; at < raw.size(); at += part) {
    const std::vector<std::uint8_t> piece(raw.begin() + static_cast<std::ptrdiff_t>(at),
                                          raw.begin() + static_cast<std::ptrdiff_t>(at + part));
    if (at == part) {
      const auto f = frame_declaring_window(16, piece);
      many.insert(many.end(), f.begin(), f.end());
    } else {
      codec.encode_append(piece, many);
    }
  }
  EXPECT_EQ(codec.decode(Codec::kZstd, many, kChunkBytes), raw);

  // Too little, too much, a frame past the chunk, a cut second frame, bytes after the last.
  EXPECT_THROW(codec.decode(Codec::kZstd, std::span(stored).first(first_frame), kChunkBytes),
               SnapshotError);
  auto extra = stored;
  codec.encode_append(std::span(raw).first(100), extra);
  EXPECT_THROW(codec.decode(Codec::kZstd, extra, kChunkBytes), SnapshotError);
  EXPECT_THROW(codec.decode(Codec::kZstd, stored, kChunkBytes / 2 + 100), SnapshotError);
  auto cut = stored;
  cut.resize(first_frame + (stored.size() - first_frame) / 2);
  EXPECT_THROW(codec.decode(Codec::kZstd, cut, kChunkBytes), SnapshotError);
  auto trailing = stored;
  trailing.push_back(0);
  EXPECT_THROW(codec.decode(Codec::kZstd, trailing, kChunkBytes), SnapshotError);
  // A second frame may not declare a window past the chunk either.
  std::vector<std::uint8_t> wide;
  codec.encode_append(std::span(raw).first(static_cast<std::size_t>(half)), wide);
  const auto f =
      frame_declaring_window(27, std::vector<std::uint8_t>(raw.begin() + half, raw.end()));
  wide.insert(wide.end(), f.begin(), f.end());
  EXPECT_THROW(codec.decode(Codec::kZstd, wide, kChunkBytes), SnapshotError);
  EXPECT_EQ(codec.decode(Codec::kZstd, stored, kChunkBytes), raw);  // still usable
}

}  // namespace
}  // namespace sandbox

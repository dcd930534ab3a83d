// Deltas from the engine image (docs/snapshot-format.md#delta-encoding): the encoding round
// trip, and every hostile stored row refused with a SnapshotError before anything is decoded.
#include "snapshot/delta.h"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "base/recycled_buffer.h"
#include "snapshot/snapshot_error.h"
#include "support/proc_memory.h"
#include "support/snapshot_reads.h"

namespace sandbox {
namespace {

// A 3-page image: page 0 = 0x11..., page 1 zero, page 2 = 0x33...
struct TestImage {
  TestImage() : bytes(3 * kSnapshotPageBytes, 0) {
    std::fill_n(bytes.begin(), kSnapshotPageBytes, 0x11);
    std::fill_n(bytes.begin() + 2 * kSnapshotPageBytes, kSnapshotPageBytes, 0x33);
    base.fingerprint = "image-a";
    base.pages = 3;
    base.page_bytes = {bytes.data(), nullptr, bytes.data() + 2 * kSnapshotPageBytes};
    base.page_hashes = hash_memory(bytes);
  }
  std::vector<std::uint8_t> bytes;
  SnapshotBase base;
};

SnapshotRecord delta_record(std::uint32_t pages, const std::string& fingerprint = "image-a") {
  SnapshotRecord r;
  r.build = "b";
  r.memory_pages = pages;
  r.codec = Codec::kZstd;
  r.base = fingerprint;
  return r;
}

// Stores `memory` as a delta from the image, as write_snapshot does.
ChunkMap store_delta(const std::vector<std::uint8_t>& memory, const SnapshotBase& base) {
  ChunkMap chunks;
  std::vector<std::uint8_t> chunk(kChunkBytes);
  const std::uint32_t pages = static_cast<std::uint32_t>(memory.size() / kSnapshotPageBytes);
  for (std::uint32_t c = 0; c * kChunkPages < pages; ++c) {
    if (delta_chunk(memory, base, c, chunk)) chunks[c] = encode_chunk(Codec::kZstd, chunk);
  }
  return chunks;
}

TEST(Delta, MemoryEqualToTheImageStoresNothing) {
  TestImage image;
  auto memory = image.bytes;
  memory.resize(20 * kSnapshotPageBytes, 0);  // grown, still zero
  EXPECT_TRUE(store_delta(memory, image.base).empty());
}

TEST(Delta, AChangedByteStoresOneSmallChunkAndReadsBackExactly) {
  TestImage image;
  auto memory = image.bytes;
  memory.resize(20 * kSnapshotPageBytes, 0);
  memory[2 * kSnapshotPageBytes + 5] = 0x34;   // a page of the image
  memory[17 * kSnapshotPageBytes + 9] = 0x01;  // a grown page, chunk 1
  const ChunkMap chunks = store_delta(memory, image.base);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_LT(chunks.at(0).size(), 1024u);  // mostly zero: zstd keeps almost nothing
  const SnapshotRecord record = delta_record(20);
  SnapshotPageReader reader(record, chunks, &image.base);
  testing_support::expect_reads_back(reader, memory);  // its 20 pages
  EXPECT_EQ(reader.delta_pages().size(), 20u);         // both chunks, cut at the memory's end
}

TEST(Delta, ARecordWithoutBaseStillReadsTheMemoryItself) {
  std::vector<std::uint8_t> memory(2 * kSnapshotPageBytes, 0);
  memory[kSnapshotPageBytes] = 7;
  ChunkMap chunks{{0, encode_chunk(Codec::kZstd, extract_chunk(memory, 0))}};
  SnapshotRecord record = delta_record(2);
  record.base.reset();
  TestImage image;  // offered, but an absolute record ignores it
  SnapshotPageReader reader(record, chunks, &image.base);
  EXPECT_EQ((*reader.page(1))[0], 7);
  EXPECT_EQ((*reader.page(0))[0], 0);
  EXPECT_TRUE(reader.delta_pages().empty());
}

TEST(Delta, ADeltaFromAnotherImageIsRefused) {
  TestImage image;
  const SnapshotRecord record = delta_record(3, "image-b");
  EXPECT_THROW(SnapshotPageReader(record, ChunkMap{}, &image.base), SnapshotError);
}

TEST(Delta, ADeltaWithoutAnEngineImageIsRefused) {
  const SnapshotRecord record = delta_record(3);
  EXPECT_THROW(SnapshotPageReader(record, ChunkMap{}, nullptr), SnapshotError);
}

TEST(Delta, ADeltaSmallerThanItsImageIsRefused) {
  TestImage image;
  EXPECT_THROW(SnapshotPageReader(delta_record(2), ChunkMap{}, &image.base), SnapshotError);
}

TEST(Delta, ARecordPastTheWasmMemoryIsRefused) {
  TestImage image;
  EXPECT_THROW(
      SnapshotPageReader(delta_record(kMaxSnapshotMemoryPages + 1), ChunkMap{}, &image.base),
      SnapshotError);
}

TEST(Delta, AChunkPastTheMemoryIsRefused) {
  TestImage image;
  ChunkMap chunks{{1, encode_chunk(Codec::kZstd, std::vector<std::uint8_t>(kChunkBytes, 1))}};
  EXPECT_THROW(SnapshotPageReader(delta_record(16), chunks, &image.base), SnapshotError);
}

TEST(Delta, APagePastTheMemoryIsRefused) {
  TestImage image;
  // The reader borrows the record and the chunks: they must outlive it.
  const SnapshotRecord record = delta_record(3);
  const ChunkMap no_chunks;
  SnapshotPageReader reader(record, no_chunks, &image.base);
  EXPECT_EQ((*reader.page(0))[0], 0x11);  // equal to the image
  EXPECT_FALSE(reader.page(1));           // a zero image page
  EXPECT_THROW(reader.page(3), SnapshotError);
}

TEST(Delta, TruncatedAndOversizedDeltaChunksAreRefused) {
  TestImage image;
  const auto whole = encode_chunk(Codec::kZstd, std::vector<std::uint8_t>(kChunkBytes, 1));
  ChunkMap truncated{{0, std::vector<std::uint8_t>(whole.begin(), whole.end() - 3)}};
  const SnapshotRecord record = delta_record(3);
  SnapshotPageReader a(record, truncated, &image.base);
  EXPECT_THROW(a.page(0), SnapshotError);
  ChunkMap oversized{
      {0, encode_chunk(Codec::kZstd, std::vector<std::uint8_t>(kChunkBytes + 1, 0))}};
  SnapshotPageReader b(record, oversized, &image.base);
  EXPECT_THROW(b.page(0), SnapshotError);
  ChunkMap raw_short{{0, std::vector<std::uint8_t>(100, 0)}};
  SnapshotRecord raw = delta_record(3);
  raw.codec = Codec::kRaw;
  SnapshotPageReader c(raw, raw_short, &image.base);
  EXPECT_THROW(c.page(2), SnapshotError);
}

TEST(Delta, TheBaseFieldRoundTripsAndIsChecked) {
  SnapshotRecord record = delta_record(3);
  EXPECT_EQ(parse_snapshot_record(to_json(record)), record);
  auto json = to_json(record);
  json["base"] = 5;
  EXPECT_THROW(static_cast<void>(parse_snapshot_record(json)), SnapshotError);
  json["base"] = "";
  EXPECT_THROW(static_cast<void>(parse_snapshot_record(json)), SnapshotError);
  json["base"] = std::string(kMaxBaseFingerprintChars + 1, 'a');
  EXPECT_THROW(static_cast<void>(parse_snapshot_record(json)), SnapshotError);
  json.erase("base");
  EXPECT_FALSE(parse_snapshot_record(json).base);  // the older encoding
}

// Deltas written now: one page per chunk row (kDeltaChunkPages), so only the changed pages have
// a row, and each decodes to exactly 64 KiB.
ChunkMap store_page_delta(const std::vector<std::uint8_t>& memory, const SnapshotBase& base) {
  ChunkMap chunks;
  std::vector<std::uint8_t> page(kSnapshotPageBytes);
  const std::uint32_t pages = static_cast<std::uint32_t>(memory.size() / kSnapshotPageBytes);
  for (std::uint32_t p = 0; p < pages; ++p) {
    if (delta_chunk(memory, base, p, page, kDeltaChunkPages)) {
      chunks[p] = encode_chunk(Codec::kZstd, page);
    }
  }
  return chunks;
}

TEST(Delta, OnePageChunksHoldExactlyTheChangedPagesAndReadBack) {
  TestImage image;
  auto memory = image.bytes;
  memory.resize(20 * kSnapshotPageBytes, 0);
  memory[2 * kSnapshotPageBytes + 5] = 0x34;
  memory[17 * kSnapshotPageBytes + 9] = 0x01;
  memory[0] = 0x10;  // page 0 differs from the image too
  const ChunkMap chunks = store_page_delta(memory, image.base);
  EXPECT_EQ(chunks.size(), 3u);
  EXPECT_TRUE(chunks.contains(0) && chunks.contains(2) && chunks.contains(17));
  SnapshotRecord record = delta_record(20);
  record.chunk_pages = kDeltaChunkPages;
  SnapshotPageReader reader(record, chunks, &image.base);
  EXPECT_EQ(reader.delta_pages(), (std::vector<std::uint32_t>{0, 2, 17}));
  testing_support::expect_reads_back(reader, memory);  // its 20 pages
  // The same rows read as 16-page chunks would be wrong sizes: refused, never misread.
  const SnapshotRecord sixteen = delta_record(20);
  EXPECT_THROW(
      {
        SnapshotPageReader wrong(sixteen, chunks, &image.base);  // row 17 is past 20 pages
        (void)wrong.page(0);
      },
      SnapshotError);
}

// Found by fuzz_replay_fuzz_snapshot, which replays the seed corpus in one process (its inputs
// delta_chunk_out_of_range, then delta_round_trip_grown, reproduce it): the one-pass page hash
// of a step kept XXH3's streaming state on the stack uninitialised, and
// XXH3_64bits_reset_withSeed skips deriving the secret when the state's seed already equals the
// new one, so a slot left by an earlier call whose secret had since been overwritten hashed
// wrongly. Page hashes are one-shot now; this test holds the property that a step's hash (with
// its block hashes) equals hash_page() across many calls with zstd in between.
TEST(Delta, StepHashesStayRightWithZstdBetweenTheCalls) {
  TestImage image;
  auto memory = image.bytes;
  memory.resize(6 * kSnapshotPageBytes, 0);
  for (std::size_t i = 0; i < memory.size(); i += 101) memory[i] ^= static_cast<std::uint8_t>(i);
  std::vector<std::uint8_t> out(kSnapshotPageBytes);
  BlockHashes blocks;
  for (int round = 0; round < 20; ++round) {
    for (std::uint32_t p = 0; p < 6; ++p) {
      const auto page = std::span<const std::uint8_t>(memory)
                            .subspan(std::size_t{p} * kSnapshotPageBytes)
                            .first<kSnapshotPageBytes>();
      ASSERT_EQ(hash_page(page, blocks), hash_page(page)) << "round " << round << " page " << p;
      (void)delta_chunk(memory, image.base, p, out, kDeltaChunkPages);
      const auto stored = encode_chunk(Codec::kZstd, out);
      ASSERT_EQ(decode_chunk(Codec::kZstd, stored, kSnapshotPageBytes), out);
    }
  }
}

TEST(Delta, HostileChunkSizesAndOnePageRowsPastTheMemoryAreRefused) {
  TestImage image;
  for (const std::uint32_t pages : {0u, 3u, 17u, 32u}) {
    SnapshotRecord record = delta_record(4);
    record.chunk_pages = pages;
    EXPECT_THROW(SnapshotPageReader(record, ChunkMap{}, &image.base), SnapshotError) << pages;
    record.base.reset();  // a record of the memory itself is checked the same way
    EXPECT_THROW(SnapshotPageReader(record, ChunkMap{}, &image.base), SnapshotError) << pages;
  }
  SnapshotRecord record = delta_record(4);
  record.chunk_pages = kDeltaChunkPages;
  const ChunkMap past{
      {4, encode_chunk(Codec::kZstd, std::vector<std::uint8_t>(kSnapshotPageBytes, 1))}};
  EXPECT_THROW(SnapshotPageReader(record, past, &image.base), SnapshotError);
  // A one-page row holding a whole 1 MiB chunk decodes to the wrong size.
  const ChunkMap big{{1, encode_chunk(Codec::kZstd, std::vector<std::uint8_t>(kChunkBytes, 1))}};
  SnapshotPageReader reader(record, big, &image.base);
  EXPECT_THROW(reader.page(1), SnapshotError);
}

// A reader shelves its decoder and chunk buffer (src/base/recycled_buffer.h): the next reader,
// on another thread as the server's next restore may be, decodes into the same memory (no page
// fault per 4 KiB of a fresh 1 MiB buffer), and a decoder shelved after a broken chunk decodes
// the next reader's chunks exactly.
TEST(Delta, TheNextReaderReusesTheLastOnesMemoryEvenAfterABrokenChunk) {
  while (Shelf<std::vector<std::uint8_t>>::take()) {  // start with nothing shelved
  }
  while (Shelf<ChunkCodec>::take()) {
  }
  TestImage image;
  auto memory = image.bytes;
  memory.resize(20 * kSnapshotPageBytes, 0);
  for (std::size_t i = 0; i < memory.size(); i += 4093) memory[i] ^= 0x5a;
  const ChunkMap chunks = store_delta(memory, image.base);
  const SnapshotRecord record = delta_record(20);
  const std::uint8_t* first_memory = nullptr;
  {
    ChunkMap broken = chunks;
    broken.at(1).resize(broken.at(1).size() - 3);
    SnapshotPageReader reader(record, broken, &image.base);
    first_memory = reader.page(0)->data();
    EXPECT_THROW(reader.page(16), SnapshotError);  // the decoder stops mid-frame
  }
  const std::uint8_t* second_memory = nullptr;
  long faults = -1;
  std::thread other([&] {
    SnapshotPageReader reader(record, chunks, &image.base);
    const long before = testing_support::thread_minor_faults();
    second_memory = reader.page(0)->data();
    faults = testing_support::thread_minor_faults() - before;
    testing_support::expect_reads_back(reader, memory);
  });
  other.join();
  EXPECT_EQ(second_memory, first_memory);
  EXPECT_LE(faults, 8);  // a fresh 1 MiB chunk buffer faults 256 times
}

}  // namespace
}  // namespace sandbox

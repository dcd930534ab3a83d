#include "snapshot/snapshot_record.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "snapshot/snapshot_error.h"

namespace sandbox {
namespace {

SnapshotRecord sample() {
  SnapshotRecord r;
  r.build = "sha256:abc";
  r.memory_pages = 600;
  r.page_count = 412;
  r.bytes = 412ull * 65'536;
  r.chunk_count = 38;
  r.handle = 18'446'744'073'709'551'000ull;  // beyond 2^53: must survive as a string
  r.extra = {{"interruptAddr", 1024}, {"interruptBits", 3}};
  r.taken_at = 1'700'000'000'123;
  r.stale = true;
  r.codec = Codec::kZstd;
  return r;
}

TEST(SnapshotRecord, JsonRoundTrip) {
  const SnapshotRecord r = sample();
  const boost::json::object o = to_json(r);
  EXPECT_EQ(o.at("handle").as_string(), "18446744073709551000");
  EXPECT_EQ(o.at("codec").as_string(), "zstd");
  EXPECT_EQ(o.at("memoryPages").to_number<int>(), 600);
  EXPECT_EQ(o.at("pageCount").to_number<int>(), 412);
  EXPECT_EQ(o.at("chunkCount").to_number<int>(), 38);
  EXPECT_EQ(o.at("takenAt").to_number<std::int64_t>(), 1'700'000'000'123);
  EXPECT_TRUE(o.at("stale").as_bool());
  // Through text, as it is stored.
  const auto reparsed = parse_snapshot_record(boost::json::parse(boost::json::serialize(o)));
  EXPECT_EQ(reparsed, r);
}

TEST(SnapshotRecord, ToleratesUpstreamRecords) {
  // An upstream-shaped record: no codec, numbers written by JavaScript.
  const auto v = boost::json::parse(
      R"({"build":"b1","memoryPages":320,"pageCount":10,"bytes":655360,"chunkCount":2,)"
      R"("handle":"5245184","extra":{},"takenAt":1.7e12,"stale":false})");
  const SnapshotRecord r = parse_snapshot_record(v);
  EXPECT_EQ(r.codec, Codec::kRaw);
  EXPECT_EQ(r.handle, 5'245'184u);
  EXPECT_EQ(r.taken_at, 1'700'000'000'000);
  EXPECT_EQ(r.memory_pages, 320u);
  EXPECT_FALSE(r.stale);

  const SnapshotRecord minimal =
      parse_snapshot_record(boost::json::parse(R"({"build":"b","handle":7})"));
  EXPECT_EQ(minimal.handle, 7u);
  EXPECT_EQ(minimal.chunk_count, 0u);
  EXPECT_TRUE(minimal.extra.empty());
  EXPECT_EQ(minimal.codec, Codec::kRaw);

  const SnapshotRecord negative =
      parse_snapshot_record(boost::json::parse(R"({"build":"b","handle":"-1"})"));
  EXPECT_EQ(negative.handle, 0xFFFF'FFFF'FFFF'FFFFull);
}

TEST(SnapshotRecord, RejectsMalformedRecords) {
  const char* bad[] = {
      R"([])",
      R"({"handle":"1"})",
      R"({"build":1,"handle":"1"})",
      R"({"build":"b"})",
      R"({"build":"b","handle":"12x"})",
      R"({"build":"b","handle":""})",
      R"({"build":"b","handle":"99999999999999999999"})",
      R"({"build":"b","handle":true})",
      R"({"build":"b","handle":"1","memoryPages":-1})",
      R"({"build":"b","handle":"1","memoryPages":4294967296})",
      R"({"build":"b","handle":"1","pageCount":1.5})",
      R"({"build":"b","handle":"1","chunkCount":"3"})",
      R"({"build":"b","handle":"1","extra":[]})",
      R"({"build":"b","handle":"1","stale":"no"})",
      R"({"build":"b","handle":"1","codec":"lz4"})",
      R"({"build":"b","handle":"1","chunkPages":0})",
      R"({"build":"b","handle":"1","chunkPages":3})",
      R"({"build":"b","handle":"1","chunkPages":32})",
      R"({"build":"b","handle":"1","chunkPages":-16})",
  };
  for (const char* text : bad) {
    EXPECT_THROW(static_cast<void>(parse_snapshot_record(boost::json::parse(text))), SnapshotError)
        << text;
  }
}

// Ours: the bytes the chunk rows take as stored. Written when counted, read back, passed to the
// SnapshotInfo; a record without it (older writers, upstream) has none.
TEST(SnapshotRecord, EncodedBytesIsKeptWhenCountedAndUnknownOtherwise) {
  SnapshotRecord r = sample();
  EXPECT_FALSE(to_json(r).contains("encodedBytes"));
  EXPECT_FALSE(snapshot_info(r).encoded_bytes);
  EXPECT_FALSE(to_json(snapshot_info(r)).contains("encodedBytes"));
  r.encoded_bytes = 812'345;
  const boost::json::object o = to_json(r);
  EXPECT_EQ(o.at("encodedBytes").to_number<std::uint64_t>(), 812'345u);
  EXPECT_EQ(parse_snapshot_record(boost::json::parse(boost::json::serialize(o))), r);
  const SnapshotInfo info = snapshot_info(r);
  EXPECT_EQ(info.encoded_bytes, 812'345u);
  EXPECT_EQ(to_json(info).at("encodedBytes").to_number<std::uint64_t>(), 812'345u);
  EXPECT_EQ(snapshot_info_from_json(to_json(info)), info);
  for (const char* text : {R"({"build":"b","handle":"1","encodedBytes":-1})",
                           R"({"build":"b","handle":"1","encodedBytes":"12"})",
                           R"({"build":"b","handle":"1","encodedBytes":1.5})"}) {
    EXPECT_THROW(parse_snapshot_record(boost::json::parse(text)), SnapshotError) << text;
  }
}

TEST(SnapshotRecord, InfoDerivation) {
  const SnapshotInfo info = snapshot_info(sample());
  EXPECT_EQ(info.build, "sha256:abc");
  EXPECT_EQ(info.pages, 412u);
  EXPECT_EQ(info.bytes, 412ull * 65'536);
  EXPECT_EQ(info.stored_bytes, 38ull * 1'048'576);
  EXPECT_EQ(info.taken_at, 1'700'000'000'123);
  EXPECT_TRUE(info.stale);
  const boost::json::object o = to_json(info);
  EXPECT_EQ(o.size(), 6u);
  EXPECT_EQ(o.at("storedBytes").to_number<std::uint64_t>(), 38ull * 1'048'576);
  EXPECT_EQ(o.at("pages").to_number<int>(), 412);
  EXPECT_EQ(o.at("build").as_string(), "sha256:abc");
}

// docs/snapshot-format.md#chunks: a delta written now says it has one page per chunk; a record
// that says nothing has upstream's 16, and writes none.
TEST(SnapshotRecord, ChunkPagesIsWrittenOnlyWhenNotSixteen) {
  SnapshotRecord r = sample();
  EXPECT_EQ(r.chunk_pages, kChunkPages);
  EXPECT_FALSE(to_json(r).contains("chunkPages"));
  r.base = "image";
  r.chunk_pages = kDeltaChunkPages;
  const boost::json::object o = to_json(r);
  EXPECT_EQ(o.at("chunkPages").to_number<int>(), 1);
  EXPECT_EQ(parse_snapshot_record(boost::json::parse(boost::json::serialize(o))), r);
  EXPECT_EQ(snapshot_info(r).stored_bytes, 38ull * 65'536);  // 38 one-page chunks
  for (const std::uint32_t pages : {1u, 2u, 4u, 8u, 16u}) {
    const auto text = R"({"build":"b","handle":"1","chunkPages":)" + std::to_string(pages) + "}";
    EXPECT_EQ(parse_snapshot_record(boost::json::parse(text)).chunk_pages, pages);
  }
}

}  // namespace
}  // namespace sandbox

// Snapshots across the change to deltas (docs/snapshot-format.md#delta-encoding), end to end over
// real SQLite with the Lua and kv engines. A snapshot in the format before deltas (whole memory,
// no `base`) is what the server still writes for an engine without a reproducible image, so the
// test writes one with the same Lua build minus its image (`counter = 41`, a 2,000-row table,
// then `counter = counter + 1`) and checks that the delta-capable server restores it, rewrites it
// as a delta, and refuses hostile delta rows with a SnapshotError.
#include <algorithm>
#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "interpreter/context_lifecycle.h"
#include "interpreter/resident_cache.h"
#include "kv_engine.h"
#include "lua_engine.h"
#include "snapshot/chunk_codec.h"
#include "snapshot/chunks.h"
#include "snapshot/snapshot_error.h"
#include "storage/sqlite/sqlite_stores.h"

namespace sandbox {
namespace {

std::string text(const InterpreterExecuteResponse& r) {
  if (r.result.outcome.error) return "error: " + r.result.outcome.error->message;
  return r.result.outcome.results.empty() ? "" : r.result.outcome.results[0].text.value_or("");
}

std::uint64_t stored_bytes(const StoredChunks& chunks) {
  std::uint64_t n = 0;
  for (const auto& [c, data] : chunks) n += data.size();
  return n;
}

class SnapshotWorld {
 public:
  SnapshotWorld(std::filesystem::path db, Engine engine) : db_(std::move(db)) {
    engine_ = std::move(engine);
    open();
  }
  ~SnapshotWorld() { close(); }

  // What a restart sees: everything in memory dropped, the database kept.
  void open() {
    storage_ = std::make_unique<SqliteStorage>(db_.string(), SqliteOptions{});
    residents_ = std::make_unique<ResidentCache>(clock_, 16);
    lifecycle_ = std::make_unique<ContextLifecycle>(engine_, store(), clock_, *residents_,
                                                    ContextLifecycleOptions{.idle_ttl_ms = 60'000});
    state_ = residents_->state_for(key_);
    lifecycle_->ensure_meta(key_, *state_);
  }
  void close() {
    if (residents_) residents_->close_all();
    state_.reset();
    lifecycle_.reset();
    residents_.reset();
    storage_.reset();
  }
  void restart() {
    close();
    open();
  }

  void set_key(std::string key) {
    key_ = std::move(key);
    state_ = residents_->state_for(key_);
    lifecycle_->ensure_meta(key_, *state_);
  }
  void create(const std::string& id) { lifecycle_->create_context(key_, *state_, NewContext{id}); }
  InterpreterExecuteResponse run(const std::string& code, const std::string& id) {
    auto row = lifecycle_->load_row(key_, id);
    EXPECT_TRUE(row) << id;
    return lifecycle_->run(key_, *state_, *row, InterpreterExecuteArgs{id, code, {}, {}});
  }
  ContextRow row(const std::string& id) { return *lifecycle_->load_row(key_, id); }
  InterpreterStore& store() { return storage_->interpreters(); }
  const std::string& key() const { return key_; }
  const Engine& engine() const { return engine_; }

 private:
  std::filesystem::path db_;
  Engine engine_;
  ManualClock clock_{1'800'000'000'000};
  std::string key_ = "legacy";
  std::unique_ptr<SqliteStorage> storage_;
  std::unique_ptr<ResidentCache> residents_;
  std::unique_ptr<ContextLifecycle> lifecycle_;
  std::shared_ptr<KeyState> state_;
};

// The Lua engine as the code before deltas ran it: same build, no image to take deltas from.
Engine lua_without_image() {
  Engine engine = engines::make_lua_engine();
  engine.sessions->base = nullptr;
  return engine;
}

class LegacySnapshotTest : public ::testing::Test {
 protected:
  LegacySnapshotTest()
      : dir_(std::filesystem::temp_directory_path() /
             ("legacy-snapshot-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    SnapshotWorld before(dir_ / "interpreters.db", lua_without_image());
    before.create("c1");
    EXPECT_EQ(
        text(before.run("counter = 41; t = {}; for i = 1, 2000 do t[i] = 'row' .. i end", "c1")),
        "");
    EXPECT_EQ(text(before.run("counter = counter + 1; return counter", "c1")), "42");
  }
  ~LegacySnapshotTest() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

TEST_F(LegacySnapshotTest, AnEngineWithoutImageWritesTheWholeMemoryFormat) {
  SnapshotWorld world(dir_ / "interpreters.db", engines::make_lua_engine());
  const ContextRow stored = world.row("c1");
  ASSERT_TRUE(stored.snapshot);
  // Otherwise CL4 would discard it and the next test would prove nothing.
  EXPECT_EQ(stored.snapshot->build, world.engine().build);
  EXPECT_FALSE(stored.snapshot->base);
}

TEST_F(LegacySnapshotTest, ASnapshotStoredBeforeDeltasRestoresAndIsRewrittenAsADelta) {
  SnapshotWorld world(dir_ / "interpreters.db", engines::make_lua_engine());
  const std::uint64_t legacy_bytes = stored_bytes(world.store().read_chunks("legacy", "c1"));
  EXPECT_EQ(text(world.run("counter = counter + 1; return counter", "c1")), "43");
  const ContextRow stored = world.row("c1");
  ASSERT_TRUE(stored.snapshot);
  ASSERT_TRUE(stored.snapshot->base);  // the first write after the restore is a delta
  EXPECT_LT(stored_bytes(world.store().read_chunks("legacy", "c1")), legacy_bytes);

  world.restart();
  EXPECT_EQ(text(world.run("return counter .. ' ' .. #t .. ' ' .. t[2000]", "c1")),
            "\"43 2000 row2000\"");  // a Lua string result is shown quoted
}

TEST_F(LegacySnapshotTest, ANewContextStoresKilobytesAndRestoresAfterARestart) {
  SnapshotWorld world(dir_ / "interpreters.db", engines::make_lua_engine());
  world.set_key("fresh");
  world.create("n");
  EXPECT_EQ(text(world.run("x = 1; return x", "n")), "1");
  ASSERT_TRUE(world.row("n").snapshot->base);
  EXPECT_LT(stored_bytes(world.store().read_chunks("fresh", "n")), 64u * 1024);
  for (int i = 2; i <= 5; ++i) {
    EXPECT_EQ(text(world.run("x = x + 1; return x", "n")), std::to_string(i));
  }
  world.restart();
  world.set_key("fresh");
  EXPECT_EQ(text(world.run("return x", "n")), "5");
  EXPECT_EQ(text(world.run("x = x * 10; return x", "n")), "50");
  world.restart();
  world.set_key("fresh");
  EXPECT_EQ(text(world.run("return x", "n")), "50");
}

// docs/snapshot-format.md#delta-encoding: deltas written before records carried `chunkPages`
// have 16-page chunks. The test turns a delta written now into exactly that (each 1 MiB chunk
// the XOR of its 16 pages, zero where a page equals the image) and checks that it restores and
// that its next write stores one page per chunk again (I13).
TEST_F(LegacySnapshotTest, ADeltaInSixteenPageChunksRestoresAndIsRewrittenAsPages) {
  SnapshotWorld world(dir_ / "interpreters.db", engines::make_lua_engine());
  world.set_key("fresh");
  world.create("n");
  EXPECT_EQ(text(world.run("x = 7; t = {}; for i = 1, 3000 do t[i] = 'v' .. i end", "n")), "");
  ContextRow row = world.row("n");
  ASSERT_TRUE(row.snapshot && row.snapshot->base);
  ASSERT_EQ(row.snapshot->chunk_pages, kDeltaChunkPages);
  const StoredChunks pages = world.store().read_chunks("fresh", "n");
  ASSERT_EQ(pages.size(), row.snapshot->chunk_count);

  std::map<std::uint32_t, std::vector<std::uint8_t>> chunks;
  SnapshotWrite old_format;
  for (const auto& [page, data] : pages) {
    auto& chunk = chunks[page / kChunkPages];
    chunk.resize(kChunkBytes);
    const auto xor_page = decode_chunk(Codec::kZstd, data, kSnapshotPageBytes);
    std::copy(
        xor_page.begin(), xor_page.end(),
        chunk.begin() + static_cast<std::ptrdiff_t>((page % kChunkPages) * kSnapshotPageBytes));
    old_format.removed.push_back(page);  // deleted before the upserts, in one transaction
  }
  for (const auto& [c, chunk] : chunks) {
    old_format.upserts.push_back(ChunkWrite{c, encode_chunk(Codec::kZstd, chunk)});
  }
  row.snapshot->chunk_pages = kChunkPages;
  row.snapshot->chunk_count = static_cast<std::uint32_t>(chunks.size());
  old_format.context_row = to_json(row);
  ASSERT_FALSE(old_format.context_row.at("snapshot").as_object().contains("chunkPages"));
  world.store().write_snapshot("fresh", "n", old_format);
  ASSERT_LT(chunks.size(), pages.size());  // several changed pages share a 1 MiB chunk

  world.restart();  // keeps the key
  EXPECT_EQ(text(world.run("return x .. ' ' .. #t .. ' ' .. t[3000]", "n")), "\"7 3000 v3000\"");
  EXPECT_EQ(text(world.run("x = x + 1; return x", "n")), "8");
  const ContextRow rewritten = world.row("n");
  ASSERT_TRUE(rewritten.snapshot);
  EXPECT_EQ(rewritten.snapshot->chunk_pages, kDeltaChunkPages);
  const StoredChunks now = world.store().read_chunks("fresh", "n");
  EXPECT_EQ(now.size(), rewritten.snapshot->chunk_count);
  for (const auto& [page, data] : now) {
    EXPECT_LT(page, rewritten.snapshot->memory_pages);
    EXPECT_EQ(decode_chunk(Codec::kZstd, data, kSnapshotPageBytes).size(), kSnapshotPageBytes);
  }
  world.restart();  // keeps the key
  EXPECT_EQ(text(world.run("return x .. ' ' .. t[1]", "n")), "\"8 v1\"");
}

// A step that changes a few pages writes those pages, each a row of its own.
TEST_F(LegacySnapshotTest, AStepRewritesOnlyThePagesItChanged) {
  SnapshotWorld world(dir_ / "interpreters.db", engines::make_lua_engine());
  world.set_key("fresh");
  world.create("n");
  EXPECT_EQ(text(world.run("t = {}; for i = 1, 20000 do t[i] = i end", "n")), "");
  const StoredChunks before = world.store().read_chunks("fresh", "n");
  ASSERT_GT(before.size(), 4u);  // the table spans several pages
  EXPECT_EQ(text(world.run("t[1] = -1; return t[1]", "n")), "-1");
  const StoredChunks after = world.store().read_chunks("fresh", "n");
  std::size_t unchanged = 0;
  for (const auto& [page, data] : after) {
    const auto it = before.find(page);
    if (it != before.end() && it->second == data) ++unchanged;
  }
  // Lua's allocator and collector touch a few pages besides t[1]'s; most rows stay as they were.
  EXPECT_GE(unchanged, after.size() / 2) << unchanged << " of " << after.size();
  world.restart();  // keeps the key
  EXPECT_EQ(text(world.run("return t[1] + t[20000]", "n")), "19999");
}

TEST_F(LegacySnapshotTest, ADeltaFromAnotherImageIsASnapshotError) {
  SnapshotWorld world(dir_ / "interpreters.db", engines::make_lua_engine());
  world.set_key("fresh");
  world.create("n");
  EXPECT_EQ(text(world.run("x = 1", "n")), "");
  ContextRow row = world.row("n");
  row.snapshot->base = std::string(64, '0');
  world.store().put_context("fresh", "n", to_json(row));
  world.restart();
  world.set_key("fresh");
  EXPECT_THROW(world.run("return x", "n"), SnapshotError);
}

TEST_F(LegacySnapshotTest, KvContextsAreDeltasToo) {
  SnapshotWorld world(dir_ / "kv.db", engines::make_kv_engine());
  world.set_key("kv");
  world.create("k");
  EXPECT_EQ(text(world.run("incr n", "k")), "1");
  EXPECT_EQ(text(world.run("incr n", "k")), "2");
  ASSERT_TRUE(world.row("k").snapshot->base);
  world.restart();
  world.set_key("kv");
  EXPECT_EQ(text(world.run("incr n", "k")), "3");
}

}  // namespace
}  // namespace sandbox

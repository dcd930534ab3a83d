// InterpreterStore over both backends (SQLite, PostgreSQL): round trips, ordering, per-key
// isolation, reopen, corrupt rows, threads.
#include <thread>

#include <gtest/gtest.h>

#include "storage/sqlite/sqlite_stores.h"
#include "storage/storage_backends.h"
#include "storage/storage_error.h"
#include "storage/storage_test_util.h"

namespace sandbox {
namespace {

using testing_storage::BackendTest;
using testing_storage::TempDir;

std::vector<std::uint8_t> blob(std::size_t n, std::uint8_t fill) {
  return std::vector<std::uint8_t>(n, fill);
}

boost::json::object row(int version) { return {{"id", "ctx"}, {"version", version}}; }

std::vector<std::string> ids_of(const std::vector<StoredRow>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.id);
  return out;
}

class InterpreterStoreTest : public BackendTest {};

TEST_P(InterpreterStoreTest, MetaRoundTrip) {
  auto storage = db().open();
  auto& store = storage->interpreters();
  EXPECT_EQ(store.get_meta("k"), std::nullopt);
  const boost::json::object meta{{"format", 4}, {"key", "k"}, {"build", "b1"}};
  store.put_meta("k", meta);
  EXPECT_EQ(store.get_meta("k"), meta);
  boost::json::object updated = meta;
  updated["lastUsed"] = "2026-01-01T00:00:00.000Z";
  store.put_meta("k", updated);
  EXPECT_EQ(store.get_meta("k"), updated);
  EXPECT_EQ(store.get_meta("other"), std::nullopt);
}

TEST_P(InterpreterStoreTest, ContextsKeepCreationOrder) {
  auto storage = db().open();
  auto& store = storage->interpreters();
  store.put_context("k", "zeta", row(1));
  store.put_context("k", "alpha", row(1));
  store.put_context("k", "mid", row(1));
  store.put_context("other", "x", row(1));
  store.put_context("k", "zeta", row(2));  // update keeps the position
  EXPECT_EQ(ids_of(store.list_contexts("k")), (std::vector<std::string>{"zeta", "alpha", "mid"}));
  EXPECT_EQ(store.get_context("k", "zeta"), row(2));
  EXPECT_EQ(store.get_context("k", "x"), std::nullopt);
  EXPECT_TRUE(store.delete_context("k", "zeta"));
  EXPECT_FALSE(store.delete_context("k", "zeta"));
  store.put_context("k", "zeta", row(3));  // re-created: now last
  EXPECT_EQ(ids_of(store.list_contexts("k")), (std::vector<std::string>{"alpha", "mid", "zeta"}));
  EXPECT_EQ(ids_of(store.list_contexts("other")), (std::vector<std::string>{"x"}));
}

TEST_P(InterpreterStoreTest, SnapshotWriteReadDrop) {
  auto storage = db().open();
  auto& store = storage->interpreters();
  EXPECT_TRUE(store.read_chunks("k", "c").empty());

  SnapshotWrite first;
  first.upserts = {{0, blob(1'048'576, 1)}, {2, blob(10, 2)}, {7, {}}};
  first.context_row = row(1);
  store.write_snapshot("k", "c", first);
  StoredChunks chunks = store.read_chunks("k", "c");
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks.at(0), blob(1'048'576, 1));
  EXPECT_EQ(chunks.at(2), blob(10, 2));
  EXPECT_TRUE(chunks.at(7).empty());
  EXPECT_EQ(store.get_context("k", "c"), row(1));

  SnapshotWrite second;
  second.removed = {2, 99};  // removing an absent chunk is harmless
  second.upserts = {{0, blob(5, 3)}, {4, blob(6, 4)}};
  second.context_row = row(2);
  store.write_snapshot("k", "c", second);
  chunks = store.read_chunks("k", "c");
  EXPECT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks.at(0), blob(5, 3));
  EXPECT_EQ(chunks.at(4), blob(6, 4));
  EXPECT_FALSE(chunks.contains(2));
  EXPECT_EQ(store.get_context("k", "c"), row(2));

  // Another context and another key are separate.
  store.write_snapshot("k", "d", first);
  store.write_snapshot("k2", "c", first);

  store.drop_snapshot("k", "c", row(3));
  EXPECT_TRUE(store.read_chunks("k", "c").empty());
  EXPECT_EQ(store.get_context("k", "c"), row(3));
  store.drop_snapshot("k", "d", std::nullopt);  // build mismatch: row untouched
  EXPECT_TRUE(store.read_chunks("k", "d").empty());
  EXPECT_EQ(store.get_context("k", "d"), row(1));
  EXPECT_EQ(store.read_chunks("k2", "c").size(), 3u);
}

TEST_P(InterpreterStoreTest, DeleteContextRemovesChunks) {
  auto storage = db().open();
  auto& store = storage->interpreters();
  SnapshotWrite w;
  w.upserts = {{1, blob(3, 1)}};
  w.context_row = row(1);
  store.write_snapshot("k", "c", w);
  store.write_snapshot("k", "keep", w);
  EXPECT_TRUE(store.delete_context("k", "c"));
  EXPECT_TRUE(store.read_chunks("k", "c").empty());
  EXPECT_EQ(store.get_context("k", "c"), std::nullopt);
  EXPECT_EQ(store.read_chunks("k", "keep").size(), 1u);
}

TEST_P(InterpreterStoreTest, WipeIsPerKeyAndListKeys) {
  auto storage = db().open();
  auto& store = storage->interpreters();
  for (const char* key : {"b", "a", "c"}) {
    store.put_meta(key, {{"format", 4}});
    SnapshotWrite w;
    w.upserts = {{0, blob(3, 1)}};
    w.context_row = row(1);
    store.write_snapshot(key, "ctx", w);
    store.set_alarm(key, 1000);
  }
  store.set_alarm("alarm-only", 5);
  EXPECT_EQ(store.list_keys(), (std::vector<std::string>{"a", "alarm-only", "b", "c"}));
  store.wipe("b");
  EXPECT_EQ(store.get_meta("b"), std::nullopt);
  EXPECT_TRUE(store.list_contexts("b").empty());
  EXPECT_TRUE(store.read_chunks("b", "ctx").empty());
  EXPECT_EQ(store.get_alarm("b"), std::nullopt);
  EXPECT_EQ(store.list_keys(), (std::vector<std::string>{"a", "alarm-only", "c"}));
  EXPECT_EQ(store.read_chunks("a", "ctx").size(), 1u);
  EXPECT_EQ(store.get_meta("c"), (boost::json::object{{"format", 4}}));
}

TEST_P(InterpreterStoreTest, Alarms) {
  auto storage = db().open();
  auto& store = storage->interpreters();
  EXPECT_EQ(store.get_alarm("k"), std::nullopt);
  store.set_alarm("k", 2'000);
  store.set_alarm("j", 1'000);
  store.set_alarm("k", 3'000);
  EXPECT_EQ(store.get_alarm("k"), 3'000);
  EXPECT_EQ(store.list_alarms(),
            (std::vector<std::pair<std::string, std::int64_t>>{{"j", 1'000}, {"k", 3'000}}));
  store.set_alarm("k", std::nullopt);
  EXPECT_EQ(store.get_alarm("k"), std::nullopt);
  EXPECT_EQ(store.list_alarms().size(), 1u);
}

TEST_P(InterpreterStoreTest, StateSurvivesReopen) {
  {
    auto storage = db().open();
    auto& store = storage->interpreters();
    store.put_meta("k", {{"format", 4}, {"build", "b"}});
    SnapshotWrite w;
    w.upserts = {{0, blob(1'048'576, 7)}, {3, blob(100, 8)}};
    w.context_row = row(5);
    store.write_snapshot("k", "c", w);
    store.set_alarm("k", 77);
  }
  auto reopened = db().open();
  auto& store = reopened->interpreters();
  EXPECT_EQ(store.get_meta("k"), (boost::json::object{{"format", 4}, {"build", "b"}}));
  EXPECT_EQ(store.get_context("k", "c"), row(5));
  const StoredChunks chunks = store.read_chunks("k", "c");
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks.at(0), blob(1'048'576, 7));
  EXPECT_EQ(store.get_alarm("k"), 77);
}

TEST(SqliteInterpreterStore, FileDatabaseUsesWal) {
  TempDir dir;
  SqliteStorage storage(dir.file("wal.db"));
  SqliteStatement st(storage.database().connection(), "PRAGMA journal_mode");
  ASSERT_TRUE(st.step());
  EXPECT_EQ(st.column_text(0), "wal");
}

TEST_P(InterpreterStoreTest, CorruptStoredJsonIsAStorageError) {
  auto storage = db().open();
  db().exec_raw("INSERT INTO meta (key, value) VALUES ('k', '{not json')");
  db().exec_raw("INSERT INTO contexts (key, id, value) VALUES ('k', 'c', '[1,2]')");
  EXPECT_THROW(storage->interpreters().get_meta("k"), StorageError);
  EXPECT_THROW(storage->interpreters().get_context("k", "c"), StorageError);
  EXPECT_THROW(storage->interpreters().list_contexts("k"), StorageError);
  // The store still works afterwards.
  storage->interpreters().put_meta("k", {{"format", 4}});
  EXPECT_TRUE(storage->interpreters().get_meta("k").has_value());
}

TEST_P(InterpreterStoreTest, ThreadsWritingDifferentKeys) {
  auto storage = db().open();
  auto& store = storage->interpreters();
  constexpr int kRounds = 40;
  const auto worker = [&](std::string key, std::uint8_t fill) {
    for (int i = 0; i < kRounds; ++i) {
      SnapshotWrite w;
      w.removed = {static_cast<std::uint32_t>(i % 3)};
      w.upserts = {{static_cast<std::uint32_t>((i + 1) % 3), blob(4096, fill)},
                   {10, blob(8, static_cast<std::uint8_t>(i))}};
      w.context_row = row(i);
      store.write_snapshot(key, "ctx", w);
      store.put_meta(key, {{"round", i}});
      EXPECT_EQ(store.get_context(key, "ctx"), row(i));
    }
  };
  std::thread a(worker, "key-a", 0xA);
  std::thread b(worker, "key-b", 0xB);
  a.join();
  b.join();
  for (const auto& [key, fill] : {std::pair{"key-a", 0xA}, std::pair{"key-b", 0xB}}) {
    EXPECT_EQ(store.get_context(key, "ctx"), row(kRounds - 1));
    EXPECT_EQ(store.get_meta(key), (boost::json::object{{"round", kRounds - 1}}));
    const StoredChunks chunks = store.read_chunks(key, "ctx");
    // Round 38 removed chunk 2 and wrote 0; round 39 removed 0 and wrote 1.
    EXPECT_EQ(chunks.size(), 2u);
    EXPECT_FALSE(chunks.contains(0));
    EXPECT_FALSE(chunks.contains(2));
    EXPECT_EQ(chunks.at(1), blob(4096, static_cast<std::uint8_t>(fill)));
    EXPECT_EQ(chunks.at(10), blob(8, kRounds - 1));
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, InterpreterStoreTest, testing_storage::kAllBackends,
                         testing_storage::backend_name);

}  // namespace
}  // namespace sandbox

// The PostgreSQL schema check at open (postgres_database.h): the layout of a fresh database,
// newer layouts refused, older or upstream-shaped layouts wiped (our tables only), old formats
// wiped per key, nodes opening one database at the same time.
#include <chrono>
#include <future>
#include <string_view>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "storage/postgres/pg_handle.h"
#include "storage/postgres/pg_test_server.h"
#include "storage/postgres/postgres_stores.h"
#include "storage/storage_error.h"

namespace sandbox {
namespace {

using testing_storage::PgTestServer;

class PostgresSchema : public ::testing::Test {
 protected:
  void SetUp() override {
    PgTestServer* server = PgTestServer::get();
    if (!server) GTEST_SKIP() << testing_storage::kNoPostgresMessage;
    db_ = server->create_database();
  }
  const std::string& url() const { return db_->conninfo(); }
  PgResult sql(const std::string& text) { return PgConnection(url()).exec(text); }
  bool table_exists(const std::string& name) {
    return PgConnection(url())
        .exec("SELECT to_regclass($1) IS NOT NULL", PgParams().text(name))
        .boolean(0, 0);
  }

 private:
  std::unique_ptr<PgTestServer::Database> db_;
};

TEST_F(PostgresSchema, FreshDatabaseGetsTheLayout) {
  PostgresStorage storage(url());
  for (const char* t : {"meta", "contexts", "chunks", "alarms", "files", "sandbox_meta",
                        "sandbox_contexts", "sandbox_alarms", "leases", "storage_schema"}) {
    EXPECT_TRUE(table_exists(t)) << t;
  }
  EXPECT_EQ(sql("SELECT version FROM storage_schema").int64(0, 0), kPostgresSchemaVersion);
  // Chunks are stored without pglz (they are zstd already).
  EXPECT_EQ(sql("SELECT attstorage::text FROM pg_attribute WHERE attrelid = 'chunks'::regclass "
                "AND attname = 'data'")
                .text(0, 0),
            "e");
}

TEST_F(PostgresSchema, ANewerLayoutIsRefusedAndKept) {
  {
    PostgresStorage storage(url());
    storage.interpreters().put_meta("k", {{"format", 4}});
  }
  sql("UPDATE storage_schema SET version = " + std::to_string(kPostgresSchemaVersion + 1));
  try {
    PostgresStorage again(url());
    FAIL() << "opened a newer layout";
  } catch (const StorageError& e) {
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
  }
  EXPECT_EQ(sql("SELECT count(*) FROM meta").int64(0, 0), 1);
}

TEST_F(PostgresSchema, UpstreamShapedTablesAreWipedOtherTablesStay) {
  sql("CREATE TABLE meta (value TEXT)");
  sql("INSERT INTO meta VALUES ('{\"format\":4}')");
  sql("CREATE TABLE pages (n INTEGER)");
  sql("CREATE TABLE someone_elses (x INTEGER)");
  sql("INSERT INTO someone_elses VALUES (7)");
  PostgresStorage storage(url());
  EXPECT_FALSE(table_exists("pages"));
  EXPECT_EQ(sql("SELECT count(*) FROM meta").int64(0, 0), 0);
  storage.interpreters().put_meta("k", {{"format", 4}});
  EXPECT_EQ(storage.interpreters().list_keys(), std::vector<std::string>{"k"});
  EXPECT_EQ(sql("SELECT x FROM someone_elses").int64(0, 0), 7);
}

TEST_F(PostgresSchema, TablesWithoutAVersionRowAreAnOlderLayout) {
  {
    PostgresStorage storage(url());
    storage.sandboxes().put_meta("sb", {{"format", 1}});
  }
  sql("DELETE FROM storage_schema");
  PostgresStorage storage(url());
  EXPECT_EQ(storage.sandboxes().get_meta("sb"), std::nullopt);
}

TEST_F(PostgresSchema, OldFormatsAreWipedPerKeyAtOpen) {
  {
    PostgresStorage storage(url());
    auto& interpreters = storage.interpreters();
    interpreters.put_meta("old", {{"format", 3}});
    interpreters.put_meta("new", {{"format", 4}});
    interpreters.put_meta("no-format", {{"build", "b"}});
    for (const char* key : {"old", "new"}) {
      SnapshotWrite w;
      w.upserts = {{0, {1, 2, 3}}};
      w.context_row = {{"id", "c"}};
      interpreters.write_snapshot(key, "c", w);
      interpreters.set_alarm(key, 10);
    }
    storage.sandboxes().put_meta("sb-old", {{"format", 0}});
    storage.sandboxes().put_meta("sb-bad", {{"id", "x"}});
    storage.sandboxes().put_meta("sb-ok", {{"format", 1}});
    WorkspacePersist files;
    files.upserts = {{"/workspace/f", std::vector<std::uint8_t>{1}, 1}};
    storage.sandboxes().persist("sb-old", files, std::nullopt);
    storage.sandboxes().persist("sb-ok", files, std::nullopt);
  }
  PostgresStorage storage(url());
  auto& interpreters = storage.interpreters();
  EXPECT_EQ(interpreters.list_keys(), (std::vector<std::string>{"new", "no-format"}));
  EXPECT_TRUE(interpreters.read_chunks("old", "c").empty());
  EXPECT_EQ(interpreters.get_alarm("old"), std::nullopt);
  EXPECT_EQ(interpreters.read_chunks("new", "c").size(), 1u);
  EXPECT_EQ(storage.sandboxes().list_sandbox_ids(), std::vector<std::string>{"sb-ok"});
  EXPECT_EQ(storage.sandboxes().load_files("sb-ok").size(), 1u);
}

TEST_F(PostgresSchema, NodesStartingTogetherTakeTurns) {
  std::vector<std::future<void>> nodes;
  nodes.reserve(4);
  for (int i = 0; i < 4; ++i) {
    nodes.push_back(std::async(std::launch::async, [&, i] {
      PostgresStorage storage(url(), {.lease = {"node-" + std::to_string(i), 30'000}});
      storage.sandboxes().put_meta("sb-" + std::to_string(i), {{"format", 1}});
    }));
  }
  for (auto& n : nodes) EXPECT_NO_THROW(n.get());
  PostgresStorage storage(url());
  EXPECT_EQ(storage.sandboxes().list_sandbox_ids().size(), 4u);
}

// A node starting while others write: the check takes no table lock on an up-to-date layout.
// (It used to run its DDL every time: CREATE INDEX IF NOT EXISTS waited for the writers'
// transactions and ALTER TABLE deadlocked with them.)
TEST_F(PostgresSchema, OpeningAnUpToDateLayoutWaitsForNoWriter) {
  {
    PostgresStorage first(url());
  }
  // Another node's writes in flight on every table the layout's DDL touches.
  PgConnection writer(url());
  writer.exec("BEGIN");
  writer.exec("INSERT INTO contexts (key, id, value) VALUES ('k', 'c', '{}')");
  writer.exec("INSERT INTO chunks (key, context_id, chunk, data) VALUES ('k', 'c', 0, '\\x00')");
  writer.exec("INSERT INTO files (sandbox_id, path, data, updated_at) VALUES ('s', '/p', NULL, 0)");
  writer.exec("INSERT INTO sandbox_contexts (sandbox_id, id, value) VALUES ('s', 'c', '{}')");
  auto opened = std::async(std::launch::async, [&] { PostgresStorage second(url()); });
  const bool in_time = opened.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  writer.exec("COMMIT");  // lets a blocked open finish either way
  EXPECT_TRUE(in_time) << "opening waited for another connection's writes";
  EXPECT_NO_THROW(opened.get());
}

TEST_F(PostgresSchema, AnUnreachableServerIsAClearStorageError) {
  try {
    PostgresStorage storage("host=/nonexistent-socket-dir port=5 dbname=x connect_timeout=2");
    FAIL() << "connected to nothing";
  } catch (const StorageError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot connect to PostgreSQL"), std::string::npos)
        << e.what();
  }
}

// Found by ASan in OldFormatsAreWipedPerKeyAtOpen: `const PgParams key = PgParams().text(v)`
// copied pointers into a temporary's strings, and libpq read freed memory.
TEST(PgParams, CannotBeCopiedSoItsPointersNeverOutliveItsValues) {
  static_assert(!std::is_copy_constructible_v<PgParams>);
  static_assert(!std::is_copy_assignable_v<PgParams>);
  PgParams a;
  a.text("first").text("second");
  const PgParams b = std::move(a);
  ASSERT_EQ(b.size(), 2);
  EXPECT_EQ(std::string_view(b.values()[0], b.lengths()[0]), "first");
  EXPECT_EQ(std::string_view(b.values()[1], b.lengths()[1]), "second");
}

}  // namespace
}  // namespace sandbox

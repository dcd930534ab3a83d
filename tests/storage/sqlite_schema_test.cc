// The schema check at open: old layouts are wiped, newer ones refused, old formats per key wiped.
#include <gtest/gtest.h>

#include "storage/sqlite/sqlite_stores.h"
#include "storage/storage_error.h"
#include "storage/storage_test_util.h"

namespace sandbox {
namespace {

using testing_storage::TempDir;

// Builds a database by hand, outside the storage layer.
void prepare(const std::string& path, const std::string& sql) {
  SqliteConnection c(path);
  c.exec(sql);
}

std::int64_t count(SqliteStorage& s, const std::string& sql) {
  SqliteStatement st(s.database().connection(), sql);
  EXPECT_TRUE(st.step());
  return st.column_int(0);
}

bool table_exists(SqliteStorage& s, const std::string& name) {
  return count(s, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = '" + name +
                      "'") > 0;
}

TEST(SqliteSchema, FreshDatabaseGetsTheLayout) {
  TempDir dir;
  SqliteStorage s(dir.file("fresh.db"));
  for (const char* t : {"meta", "contexts", "chunks", "alarms", "files", "sandbox_meta",
                        "sandbox_contexts", "sandbox_alarms"}) {
    EXPECT_TRUE(table_exists(s, t)) << t;
  }
  EXPECT_EQ(count(s, "PRAGMA user_version"), kSqliteSchemaVersion);
}

TEST(SqliteSchema, UpstreamShapedTablesAreWiped) {
  TempDir dir;
  const std::string path = dir.file("upstream.db");
  // Upstream format 4 (one DO): no key column anywhere.
  prepare(path,
          "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
          "CREATE TABLE contexts (id TEXT PRIMARY KEY, value TEXT);"
          "CREATE TABLE chunks (context_id TEXT, chunk INTEGER, data BLOB,"
          "  PRIMARY KEY (context_id, chunk)) WITHOUT ROWID;"
          "INSERT INTO meta VALUES ('interpreter', '{\"format\":4}');"
          "INSERT INTO contexts VALUES ('c', '{}');"
          "INSERT INTO chunks VALUES ('c', 0, x'00');");
  SqliteStorage s(path);
  EXPECT_EQ(count(s, "SELECT count(*) FROM meta"), 0);
  EXPECT_EQ(count(s, "SELECT count(*) FROM contexts"), 0);
  EXPECT_EQ(count(s, "SELECT count(*) FROM chunks"), 0);
  // The new layout works.
  s.interpreters().put_context("k", "c", {{"ok", true}});
  EXPECT_TRUE(s.interpreters().get_context("k", "c").has_value());
}

TEST(SqliteSchema, PagesTableAndOlderVersionsAreWiped) {
  TempDir dir;
  {
    const std::string path = dir.file("pages.db");
    {
      SqliteStorage s(path);
      s.interpreters().put_meta("k", {{"format", 4}});
    }
    prepare(path, "CREATE TABLE pages (context_id TEXT, page INTEGER, data BLOB);");
    SqliteStorage s(path);
    EXPECT_FALSE(table_exists(s, "pages"));
    EXPECT_EQ(s.interpreters().get_meta("k"), std::nullopt);
  }
  {
    const std::string path = dir.file("v3.db");
    {
      SqliteStorage s(path);
      s.interpreters().put_meta("k", {{"format", 4}});
      s.sandboxes().put_meta("s", {{"format", 1}});
    }
    prepare(path, "PRAGMA user_version = 3; CREATE TABLE legacy_extra (x);");
    SqliteStorage s(path);
    EXPECT_EQ(s.interpreters().get_meta("k"), std::nullopt);
    EXPECT_EQ(s.sandboxes().get_meta("s"), std::nullopt);
    EXPECT_FALSE(table_exists(s, "legacy_extra"));
    EXPECT_EQ(count(s, "PRAGMA user_version"), kSqliteSchemaVersion);
  }
}

TEST(SqliteSchema, NewerVersionIsRefusedAndLeftAlone) {
  TempDir dir;
  const std::string path = dir.file("future.db");
  {
    SqliteStorage s(path);
    s.interpreters().put_meta("k", {{"format", 4}});
  }
  prepare(path, "PRAGMA user_version = 5;");
  EXPECT_THROW(SqliteStorage s(path), StorageError);
  prepare(path, "PRAGMA user_version = 4;");
  SqliteStorage s(path);
  EXPECT_TRUE(s.interpreters().get_meta("k").has_value());
}

TEST(SqliteSchema, OldFormatsAreWipedPerKey) {
  TempDir dir;
  const std::string path = dir.file("formats.db");
  {
    SqliteStorage s(path);
    auto& i = s.interpreters();
    for (const auto& [key, meta] : std::vector<std::pair<std::string, boost::json::object>>{
             {"old", {{"format", 3}}},
             {"current", {{"format", 4}}},
             {"newer", {{"format", 5}}},
             {"no-format", {{"build", "b"}}},
             {"string-format", {{"format", "3"}}}}) {
      i.put_meta(key, meta);
      SnapshotWrite w;
      w.upserts = {{0, {1, 2, 3}}};
      w.context_row = {{"id", "c"}};
      i.write_snapshot(key, "c", w);
      i.set_alarm(key, 10);
    }
    auto& sb = s.sandboxes();
    for (const auto& [id, meta] : std::vector<std::pair<std::string, boost::json::object>>{
             {"s-old", {{"format", 0}}},
             {"s-current", {{"format", 1}}},
             {"s-newer", {{"format", 2}}},
             {"s-missing", {{"id", "s-missing"}}}}) {
      sb.put_meta(id, meta);
      sb.put_context(id, "c", {{"n", 1}});
      WorkspacePersist files;
      files.upserts = {{"/workspace/f", std::vector<std::uint8_t>{1}, 1}};
      sb.persist(id, files, std::nullopt);
    }
  }
  SqliteStorage s(path);
  auto& i = s.interpreters();
  EXPECT_EQ(i.list_keys(),
            (std::vector<std::string>{"current", "newer", "no-format", "string-format"}));
  EXPECT_TRUE(i.read_chunks("old", "c").empty());
  EXPECT_EQ(i.get_context("old", "c"), std::nullopt);
  EXPECT_EQ(i.get_alarm("old"), std::nullopt);
  EXPECT_EQ(i.read_chunks("current", "c").size(), 1u);
  // docs/snapshot-format.md#schema-check (M3): a sandbox meta whose format is not exactly 1 (or
  // missing) is wiped.
  EXPECT_EQ(s.sandboxes().list_sandbox_ids(), (std::vector<std::string>{"s-current"}));
  EXPECT_EQ(s.sandboxes().load_files("s-current").size(), 1u);
}

}  // namespace
}  // namespace sandbox

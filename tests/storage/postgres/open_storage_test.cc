// open_storage(): the backend a server's --database option selects.
#include "storage/postgres/open_storage.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "storage/postgres/pg_test_server.h"
#include "storage/storage_error.h"
#include "storage/storage_test_util.h"

namespace sandbox {
namespace {

TEST(OpenStorage, RecognizesPostgresUrls) {
  EXPECT_TRUE(is_postgres_url("postgresql://sbx@db:5432/sandboxd"));
  EXPECT_TRUE(is_postgres_url("postgres://db/sandboxd"));
  EXPECT_TRUE(is_postgres_url("host=/run/postgresql dbname=sandboxd"));
  EXPECT_FALSE(is_postgres_url("mysql://db/x"));
  EXPECT_FALSE(is_postgres_url("data/sandboxd.db"));
}

TEST(OpenStorage, DefaultNodeIds) {
  EXPECT_EQ(default_node_id(""), "local");  // SQLite: one machine, restarts take keys back
  const std::string shared = default_node_id("postgresql://db/x");
  EXPECT_FALSE(shared.empty());
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0 && host[0]) {
    EXPECT_EQ(shared, host);
  }
}

TEST(OpenStorage, DescriptionsHidePasswords) {
  EXPECT_EQ(describe_storage({.database_url = "postgresql://sbx:secret@db:5432/sandboxd"}),
            "postgresql postgresql://sbx:***@db:5432/sandboxd");
  EXPECT_EQ(describe_storage({.database_url = "host=db password=secret dbname=x"}),
            "postgresql host=db password=*** dbname=x");
  EXPECT_EQ(describe_storage({.sqlite_path = "data/sandboxd.db"}), "sqlite data/sandboxd.db");
}

TEST(OpenStorage, SqliteByDefaultAndBadUrlsRefused) {
  testing_storage::TempDir dir;
  auto storage = open_storage({.sqlite_path = dir.file("s.db"), .lease = {"n1", 1000}});
  EXPECT_EQ(storage->sandboxes().acquire_lease("sb").token, 1);
  storage->sandboxes().put_meta("sb", {{"format", 1}});
  EXPECT_EQ(storage->sandboxes().list_sandbox_ids(), std::vector<std::string>{"sb"});
  EXPECT_THROW(open_storage({.database_url = "mysql://db/x"}), std::invalid_argument);
  EXPECT_THROW(open_storage({.sqlite_path = dir.file("t.db"), .lease = {"", 1000}}),
               std::invalid_argument);
}

TEST(OpenStorage, PostgresFromAUrl) {
  auto* server = testing_storage::PgTestServer::get();
  if (!server) GTEST_SKIP() << testing_storage::kNoPostgresMessage;
  const auto db = server->create_database();
  auto storage = open_storage({.database_url = db->conninfo(), .lease = {"n1", 1000}});
  storage->interpreters().put_meta("k", {{"format", 4}});
  auto again = open_storage({.database_url = db->conninfo(), .lease = {"n2", 1000}});
  EXPECT_EQ(again->interpreters().get_meta("k"), (boost::json::object{{"format", 4}}));
}

}  // namespace
}  // namespace sandbox

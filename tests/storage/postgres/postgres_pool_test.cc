// The PostgreSQL connection pool (postgres_database.h) across the server closing its connections:
// a restart, or pg_terminate_backend, ends every backend, and the pool still holds their
// connections idle.
#include <string>

#include <gtest/gtest.h>

#include "storage/postgres/pg_handle.h"
#include "storage/postgres/pg_test_server.h"
#include "storage/postgres/postgres_stores.h"

namespace sandbox {
namespace {

using testing_storage::PgTestServer;

class PostgresPool : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = PgTestServer::get();
    if (!server_) GTEST_SKIP() << testing_storage::kNoPostgresMessage;
    db_ = server_->create_database();
    name_ = PgConnection(db_->conninfo()).exec("SELECT current_database()").text(0, 0);
  }

  // Ends every connection to the test's database, as a server restart does, and waits until
  // each backend process has exited (so its socket is closed: a backend leaves
  // pg_stat_activity before its process ends).
  void terminate_connections() {
    PgConnection admin(server_->admin_conninfo());
    const PgResult ended = admin.exec(
        "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity "
        "WHERE datname = $1 AND pid <> pg_backend_pid()",
        PgParams().text(name_));
    ASSERT_GT(ended.rows(), 0) << "no connection to end";
    for (int i = 0; i < ended.rows(); ++i) ASSERT_TRUE(ended.boolean(i, 0)) << "still running";
  }

  PgTestServer* server_ = nullptr;
  std::unique_ptr<PgTestServer::Database> db_;
  std::string name_;
};

// Regression (the cluster test's pg_crash scenario): after PostgreSQL restarted, the first
// statement on each connection the pool held idle failed ("server closed the connection
// unexpectedly"), so requests that did nothing wrong failed with a storage failure, and the
// failing snapshot transaction is how an answered round was lost (docs/contexts.md#store-failure).
TEST_F(PostgresPool, PgCrashKilledPooledConnectionsFailedTheNextRequests) {
  PostgresStorage storage(db_->conninfo());
  InterpreterStore& store = storage.interpreters();
  store.put_meta("k", {{"format", 4}});
  store.put_context("k", "ctx-1", {{"executions", 1}});
  terminate_connections();
  ASSERT_FALSE(testing::Test::HasFatalFailure());

  // A transaction (chunks and row) and single statements, each on a connection taken from the
  // pool: none fails, and what they wrote is there.
  SnapshotWrite write;
  write.context_row = {{"executions", 2}};
  EXPECT_NO_THROW(store.write_snapshot("k", "ctx-1", write));
  EXPECT_NO_THROW(store.put_meta("k", {{"format", 4}}));
  const auto row = store.get_context("k", "ctx-1");
  ASSERT_TRUE(row);
  EXPECT_EQ(row->at("executions").as_int64(), 2);
}

// A connection whose backend is gone is seen as closed without running a statement on it.
TEST_F(PostgresPool, AnIdleConnectionTheServerClosedIsNotOpen) {
  PgConnection c(db_->conninfo());
  EXPECT_TRUE(c.still_open());
  terminate_connections();
  ASSERT_FALSE(testing::Test::HasFatalFailure());
  EXPECT_FALSE(c.still_open());
  EXPECT_FALSE(c.healthy());
}

}  // namespace
}  // namespace sandbox

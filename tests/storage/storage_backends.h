// The storage backends the behavioural tests run against: SQLite in a temporary file and
// PostgreSQL in a fresh database of the test server (postgres/pg_test_server.h). A test takes a
// TestDatabase and opens Storage over it as often as it likes (a reopen is a restart).
//
//   class MyTest : public BackendTest {};
//   TEST_P(MyTest, Something) { auto storage = db().open(); ... }
//   INSTANTIATE_TEST_SUITE_P(Backends, MyTest, kAllBackends, backend_name);
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "storage/postgres/pg_handle.h"
#include "storage/postgres/pg_test_server.h"
#include "storage/postgres/postgres_stores.h"
#include "storage/sqlite/sqlite_stores.h"
#include "storage/storage_test_util.h"

namespace sandbox::testing_storage {

class TestDatabase {
 public:
  virtual ~TestDatabase() = default;
  // Opens the database (creating its layout the first time). Throws StorageError.
  virtual std::unique_ptr<Storage> open(FaultInjector* faults = nullptr,
                                        LeaseOptions lease = {}) = 0;
  // Runs SQL outside the storage layer (to corrupt rows, inspect tables).
  virtual void exec_raw(const std::string& sql) = 0;
};

class SqliteTestDatabase final : public TestDatabase {
 public:
  std::unique_ptr<Storage> open(FaultInjector* faults, LeaseOptions lease) override {
    SqliteOptions options;
    options.fault_injector = faults;
    options.lease = std::move(lease);
    return std::make_unique<SqliteStorage>(path_, options);
  }
  void exec_raw(const std::string& sql) override { SqliteConnection(path_).exec(sql); }
  const std::string& path() const { return path_; }

 private:
  TempDir dir_;
  std::string path_ = dir_.file("state.db");
};

class PostgresTestDatabase final : public TestDatabase {
 public:
  explicit PostgresTestDatabase(std::unique_ptr<PgTestServer::Database> db) : db_(std::move(db)) {}
  std::unique_ptr<Storage> open(FaultInjector* faults, LeaseOptions lease) override {
    PostgresOptions options;
    options.fault_injector = faults;
    options.lease = std::move(lease);
    return std::make_unique<PostgresStorage>(db_->conninfo(), options);
  }
  void exec_raw(const std::string& sql) override { PgConnection(db_->conninfo()).exec(sql); }
  const std::string& conninfo() const { return db_->conninfo(); }

 private:
  std::unique_ptr<PgTestServer::Database> db_;
};

struct Backend {
  const char* name;
  // A fresh database; nullptr when the backend is unavailable (no PostgreSQL installed).
  std::function<std::unique_ptr<TestDatabase>()> make;
};

inline void PrintTo(const Backend& b, std::ostream* os) { *os << b.name; }

inline const Backend kSqliteBackend{"sqlite",
                                    [] { return std::make_unique<SqliteTestDatabase>(); }};
inline const Backend kPostgresBackend{
    "postgres", []() -> std::unique_ptr<TestDatabase> {
      PgTestServer* server = PgTestServer::get();
      if (!server) return nullptr;
      return std::make_unique<PostgresTestDatabase>(server->create_database());
    }};

inline const auto kAllBackends = ::testing::Values(kSqliteBackend, kPostgresBackend);

inline std::string backend_name(const ::testing::TestParamInfo<Backend>& info) {
  return info.param.name;
}

// A test over one backend: db() is a fresh database; skipped when the backend is unavailable.
class BackendTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    db_ = GetParam().make();
    if (!db_) GTEST_SKIP() << kNoPostgresMessage;
  }
  TestDatabase& db() { return *db_; }

 private:
  std::unique_ptr<TestDatabase> db_;
};

}  // namespace sandbox::testing_storage

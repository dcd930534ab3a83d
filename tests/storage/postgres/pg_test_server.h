// Test support: a real PostgreSQL server for the storage and sandboxd tests.
//
// Which server (PgTestServer::get(), first that applies):
//  1. SANDBOX_TEST_POSTGRES_URL: an existing server's admin connection string (a role that may
//     CREATE DATABASE), e.g. "host=/var/run/postgresql user=postgres dbname=postgres".
//  2. SANDBOX_TEST_PG_CLUSTER_FILE: the info file of the cluster the CTest fixture started
//     (pg_test_cluster start FILE; tests/storage/postgres/CMakeLists.txt), shared by every test
//     process of a ctest run.
//  3. Otherwise a private cluster for this process, started on first use and stopped at exit.
//
// A private cluster: initdb into a fresh directory under $TMPDIR (/tmp as root), then pg_ctl start
// with a Unix socket in that directory and no TCP listener (no port to collide on), trust
// authentication, fsync off (the tests simulate process crashes, not power loss). PostgreSQL
// refuses to run as root, so as root both run as the `postgres` user through runuser; the
// directory is handed to that user. The binaries come from $PG_BINDIR, or the newest
// /usr/lib/postgresql/<version>/bin, or initdb/pg_ctl on the PATH.
//
// get() returns nullptr only when no PostgreSQL server binaries exist at all (the tests then
// GTEST_SKIP with kNoPostgresMessage); any other failure to start throws.
//
// Each test takes a fresh database (create_database()), dropped when the handle is destroyed.
#pragma once

#include <memory>
#include <optional>
#include <string>

namespace sandbox::testing_storage {

inline constexpr const char* kNoPostgresMessage =
    "no PostgreSQL server binaries (initdb, pg_ctl) on this machine: install postgresql "
    "(scripts/bootstrap.sh does) or set SANDBOX_TEST_POSTGRES_URL";

// The directory holding initdb and pg_ctl, if any.
std::optional<std::string> find_postgres_bindir();

// A cluster in a temporary directory, stopped and removed on destruction unless detach()ed.
class PgCluster {
 public:
  // initdb + pg_ctl start. Throws std::runtime_error (with the server log) on failure.
  static std::unique_ptr<PgCluster> start(const std::string& bindir);
  // Stops the cluster whose directory is `dir` (pg_ctl stop -m fast) and removes `dir`.
  static void stop(const std::string& bindir, const std::string& dir);
  ~PgCluster();
  PgCluster(const PgCluster&) = delete;
  PgCluster& operator=(const PgCluster&) = delete;

  // Leaves the server running when this object dies (the CTest fixture's cleanup stops it).
  void detach() { detached_ = true; }
  const std::string& dir() const { return dir_; }
  // "host=DIR port=5432 user=postgres dbname=postgres".
  std::string admin_conninfo() const;

 private:
  PgCluster(std::string bindir, std::string dir)
      : bindir_(std::move(bindir)), dir_(std::move(dir)) {}
  std::string bindir_;
  std::string dir_;
  bool detached_ = false;
};

class PgTestServer {
 public:
  // The server for this process (see above); nullptr when PostgreSQL is not installed.
  static PgTestServer* get();

  // A fresh, empty database on the server, dropped (WITH FORCE) when destroyed.
  class Database {
   public:
    Database(std::string admin, std::string name, std::string conninfo)
        : admin_(std::move(admin)), name_(std::move(name)), conninfo_(std::move(conninfo)) {}
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;
    // A libpq connection string for it.
    const std::string& conninfo() const { return conninfo_; }

   private:
    std::string admin_;
    std::string name_;
    std::string conninfo_;
  };
  std::unique_ptr<Database> create_database();

  const std::string& admin_conninfo() const { return admin_; }

 private:
  explicit PgTestServer(std::string admin) : admin_(std::move(admin)) {}
  std::string admin_;
  std::unique_ptr<PgCluster> own_cluster_;
};

}  // namespace sandbox::testing_storage

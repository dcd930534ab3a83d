// PostgresDatabase: one PostgreSQL database shared by every node (docs/several-nodes.md) that
// holds both sides, with the same tables and rules as SqliteDatabase:
//
//   meta             (key PRIMARY KEY, value TEXT JSON)                   interpreter meta
//   contexts         (seq identity, key, id, value; PRIMARY KEY (key, id))  context rows
//   chunks           (key, context_id, chunk, data BYTEA; PRIMARY KEY (key, context_id, chunk))
//   alarms           (key PRIMARY KEY, deadline BIGINT)                   idle expiry per key
//   files            (seq, sandbox_id, path, data BYTEA NULL for dirs, updated_at;
//                     PRIMARY KEY (sandbox_id, path))
//   sandbox_meta     (sandbox_id PRIMARY KEY, value)   sandbox_contexts (seq, sandbox_id, id,
//   value) sandbox_alarms   (sandbox_id PRIMARY KEY, deadline) leases           (scope, key, owner,
//   token, expires_at; PRIMARY KEY (scope, key))  lease.h storage_schema   (version) one row:
//   kPostgresSchemaVersion
//
// JSON values are TEXT (kept byte for byte, as SQLite keeps them; jsonb would reorder keys).
// `seq` columns keep rows in insertion order (an upsert keeps its seq; delete + re-add gets a
// new one), as SQLite's rowid does. Chunk data is stored EXTERNAL (not re-compressed: it is
// zstd already). Sorted listings use COLLATE "C" (byte order, as SQLite's).
//
// Schema check at open, under a transaction-scoped advisory lock so that nodes starting together
// take turns (no migration, only wipe: docs/snapshot-format.md#schema-check):
//  - our tables are dropped when the database holds an older layout: our tables without a
//    storage_schema row, a version below ours, a `pages` table, or an upstream-shaped table
//    (`meta`/`contexts`/`chunks`/`files` without the key column). Only the tables named above
//    are ever dropped; other tables of the database are left alone (the `leases` table is kept
//    too, so tokens keep growing);
//  - a newer layout (version above ours) is refused with StorageError, never wiped;
//  - the tables and indexes are created only when one is missing or the layout was wiped: on an
//    up-to-date layout the check takes no table lock, so a node can start next to busy ones;
//  - per key, everything of an interpreter key whose meta JSON has a numeric `format` < 4 is
//    wiped; per sandbox id, everything whose meta JSON `format` is not exactly 1.
//
// Connections: a pool of at most PostgresOptions::max_connections, each used by one caller at a
// time (one transaction per write method); calls beyond that wait for a free connection. A
// connection that broke or failed mid-transaction is closed instead of being reused, so a
// restarted server costs one failed call per pooled connection at most. Statements are
// parameterized (PQexecParams); nothing is quoted into SQL text.
//
// Transactions run at READ COMMITTED. Every write method's transaction first locks the key's
// lease row (SELECT ... FOR SHARE) and checks the fence (lease.h), so a take-over (an UPDATE
// of that row) waits for a write in progress, and a write after it sees the new token.
//
// Thread-safety: every method is safe from any thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "storage/fault_injector.h"
#include "storage/held_leases.h"
#include "storage/lease.h"
#include "storage/postgres/pg_handle.h"

namespace sandbox {

inline constexpr int kPostgresSchemaVersion = 1;

struct PostgresOptions {
  // Upper bound on open connections (sandboxd's worker threads share them).
  int max_connections = 8;
  // Borrowed; must outlive the database. Consulted before every write statement and COMMIT.
  FaultInjector* fault_injector = nullptr;
  // This node's id and lease TTL (storage/lease.h).
  LeaseOptions lease;
};

class PostgresDatabase {
 public:
  // Connects to `conninfo` (a postgresql:// URI or key=value pairs), runs the schema check.
  // Throws StorageError (the server is unreachable, the layout is newer, ...).
  PostgresDatabase(std::string conninfo, PostgresOptions options = {});
  PostgresDatabase(const PostgresDatabase&) = delete;
  PostgresDatabase& operator=(const PostgresDatabase&) = delete;
  ~PostgresDatabase();

  // A pooled connection, returned to the pool when destroyed (closed instead when unhealthy).
  class Session {
   public:
    explicit Session(PostgresDatabase& db);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;
    // A statement that reads (or DDL): no fault point.
    PgResult query(const std::string& sql, const PgParams& params = {});
    // A statement that writes: consults the fault injector first. Returns rows changed.
    std::int64_t write(const std::string& sql, const PgParams& params = {});
    PgResult write_returning(const std::string& sql, const PgParams& params);

   private:
    friend class PostgresDatabase;
    PostgresDatabase& db_;
    std::unique_ptr<PgConnection> connection_;
  };

  // BEGIN ... COMMIT on a session; rolls back when destroyed uncommitted (an exception).
  class Transaction {
   public:
    explicit Transaction(Session& session);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    // Consults the fault injector ("COMMIT"), then commits.
    void commit();

   private:
    Session& session_;
    bool open_ = true;
  };

  // Lease rows of `scope` (storage/lease.h); `held` is the calling store's record of grants.
  LeaseGrant acquire_lease(std::string_view scope, std::string_view key, HeldLeases& held);
  void release_lease(std::string_view scope, std::string_view key, HeldLeases& held);
  // Guarantees 1 and 2 of lease.h for a write on (scope, key), inside the write's transaction:
  // throws FencedWriteError (and forgets the stale grant) unless the write may go ahead.
  void check_fence(Session& session, std::string_view scope, std::string_view key,
                   HeldLeases& held);

  const PostgresOptions& options() const { return options_; }

 private:
  std::unique_ptr<PgConnection> take_connection();
  void give_back(std::unique_ptr<PgConnection> connection);
  void check_schema();
  void fault_point(std::string_view sql);

  std::string conninfo_;
  PostgresOptions options_;
  std::mutex mu_;
  std::condition_variable freed_;
  std::vector<std::unique_ptr<PgConnection>> idle_;
  int open_connections_ = 0;  // idle + lent out
};

}  // namespace sandbox

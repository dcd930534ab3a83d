// SqliteDatabase: the one SQLite file under the server's data directory that holds both the
// runtime side (interpreter keys, storage format 4) and the caller side (sandbox ids, sandbox
// format 1). SqliteInterpreterStore and SqliteSandboxStore are views over it.
//
// Layout (user_version = kSqliteSchemaVersion):
//   meta             (key PRIMARY KEY, value JSON)                      interpreter meta
//   contexts         (key, id, value JSON; UNIQUE(key, id))             context rows
//   chunks           (key, context_id, chunk, data BLOB;
//                     PRIMARY KEY (key, context_id, chunk)) WITHOUT ROWID   snapshot chunks
//   alarms           (key PRIMARY KEY, deadline)                        idle expiry per key
//   files            (sandbox_id, path, data BLOB NULL for dirs, updated_at; UNIQUE(sandbox_id,
//   path)) sandbox_meta     (sandbox_id PRIMARY KEY, value JSON) sandbox_contexts (sandbox_id, id,
//   value JSON; UNIQUE(sandbox_id, id)) sandbox_alarms   (sandbox_id PRIMARY KEY, deadline)
//   leases           (scope, key, owner, token, expires_at; PRIMARY KEY (scope, key))
//                    ownership among processes sharing the file (storage/lease.h); added to
//                    layout 4 without a version bump (an older server ignores the table)
// Row tables keep rowids so listings come back in insertion order (JavaScript Map order).
//
// Schema check at open (no migration, only wipe: docs/snapshot-format.md#schema-check):
//  - every table is dropped when the file holds an older layout: user_version 1..3, a `pages`
//    table, or an upstream-shaped table (`meta`/`contexts`/`chunks`/`files` without the key
//    column);
//  - a newer layout (user_version above ours) is refused with StorageError, never wiped;
//  - per key, everything of an interpreter key whose meta JSON has a numeric `format` < 4 is
//    wiped; per sandbox id, everything whose meta JSON `format` is not exactly 1;
//  - then the tables are created and user_version recorded.
//
// Connection and threads: one connection, serialized by a mutex (lock()); SQLite itself is
// opened without its own mutex. WAL journal, synchronous=NORMAL by default (a committed
// transaction may be lost on power failure but never half-applied), busy timeout for other
// processes. A long snapshot write therefore blocks other keys' storage calls for its duration.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "storage/fault_injector.h"
#include "storage/held_leases.h"
#include "storage/lease.h"
#include "storage/sqlite/sqlite_handle.h"

namespace sandbox {

inline constexpr int kSqliteSchemaVersion = 4;

struct SqliteOptions {
  int busy_timeout_ms = 5'000;
  // synchronous=FULL instead of NORMAL: durable across power loss, slower commits.
  bool synchronous_full = false;
  // Borrowed; must outlive the database. Consulted before every write statement.
  FaultInjector* fault_injector = nullptr;
  // This process's node id and lease TTL (storage/lease.h).
  LeaseOptions lease;
};

class SqliteDatabase {
 public:
  // Opens `path` (":memory:" for a private in-memory database), runs the schema check. Throws
  // StorageError.
  explicit SqliteDatabase(const std::string& path, SqliteOptions options = {});
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  // Every use of statement()/write()/Transaction happens under this lock.
  [[nodiscard]] std::unique_lock<std::mutex> lock() { return std::unique_lock(mutex_); }

  // The cached prepared statement for `sql`, prepared on first use. Reset it after use
  // (StatementScope).
  SqliteStatement& statement(std::string_view sql);
  // Consults the fault injector, then steps a write statement to completion. Returns the
  // number of rows it changed.
  std::int64_t write(SqliteStatement& st);

  // Lease rows of `scope` (storage/lease.h), for the stores' acquire_lease/release_lease; each
  // takes lock() itself. `held` is the calling store's record of its grants.
  LeaseGrant acquire_lease(std::string_view scope, std::string_view key, HeldLeases& held);
  void release_lease(std::string_view scope, std::string_view key, HeldLeases& held);
  // Guarantees 1 and 2 of lease.h for a write on (scope, key): throws FencedWriteError (and
  // forgets the stale grant) unless the write may go ahead. Call under lock(), inside the
  // write's Transaction.
  void check_fence(std::string_view scope, std::string_view key, HeldLeases& held);

  // The raw connection, for tests and tools that inspect the file; hold lock() while using it
  // when other threads may use the database.
  SqliteConnection& connection() { return connection_; }

  // BEGIN IMMEDIATE ... COMMIT; rolls back when destroyed uncommitted (an exception).
  class Transaction {
   public:
    explicit Transaction(SqliteDatabase& db);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    void commit();

   private:
    SqliteDatabase& db_;
    bool open_ = true;
  };

 private:
  void configure();
  void check_schema();
  bool has_table(const std::string& name);
  bool has_column(const std::string& table, const std::string& column);
  void drop_all_tables();
  void wipe_old_keys();
  void fault_point(std::string_view sql);

  SqliteOptions options_;
  SqliteConnection connection_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<SqliteStatement>, std::less<>> statements_;
};

}  // namespace sandbox

// The PostgreSQL implementations of InterpreterStore and SandboxStore, both views over one
// PostgresDatabase (see postgres_database.h for the layout, schema check, pool and fencing), and
// PostgresStorage, which owns the database and both views. The semantics are exactly those of
// the SQLite backend (sqlite_stores.h): same rows, orders, wipe rules and one transaction per
// write method; each view keeps the leases it holds (scope "interpreter" / "sandbox").
#pragma once

#include <memory>
#include <string>

#include "storage/held_leases.h"
#include "storage/interpreter_store.h"
#include "storage/postgres/postgres_database.h"
#include "storage/sandbox_store.h"
#include "storage/storage.h"

namespace sandbox {

class PostgresInterpreterStore final : public InterpreterStore {
 public:
  // Borrows `db`, which must outlive the store.
  explicit PostgresInterpreterStore(PostgresDatabase& db) : db_(db) {}

  std::optional<boost::json::object> get_meta(std::string_view key) override;
  void put_meta(std::string_view key, const boost::json::object& meta) override;
  std::vector<StoredRow> list_contexts(std::string_view key) override;
  std::optional<boost::json::object> get_context(std::string_view key,
                                                 std::string_view id) override;
  void put_context(std::string_view key, std::string_view id,
                   const boost::json::object& row) override;
  bool delete_context(std::string_view key, std::string_view id) override;
  StoredChunks read_chunks(std::string_view key, std::string_view context_id) override;
  void write_snapshot(std::string_view key, std::string_view context_id,
                      const SnapshotWrite& write) override;
  void drop_snapshot(std::string_view key, std::string_view context_id,
                     const std::optional<boost::json::object>& row) override;
  void wipe(std::string_view key) override;
  std::vector<std::string> list_keys() override;
  std::size_t count_keys_with_contexts() override;
  std::optional<std::int64_t> get_alarm(std::string_view key) override;
  void set_alarm(std::string_view key, std::optional<std::int64_t> deadline_ms) override;
  std::vector<std::pair<std::string, std::int64_t>> list_alarms() override;
  LeaseGrant acquire_lease(std::string_view key) override;
  void release_lease(std::string_view key) override;
  void release_all_leases() override;

 private:
  PostgresDatabase& db_;
  HeldLeases leases_;
};

class PostgresSandboxStore final : public SandboxStore {
 public:
  explicit PostgresSandboxStore(PostgresDatabase& db) : db_(db) {}

  std::vector<WorkspaceRow> load_files(std::string_view sandbox_id) override;
  void persist(std::string_view sandbox_id, const WorkspacePersist& diff,
               const std::optional<StoredRow>& context) override;
  std::optional<boost::json::object> get_meta(std::string_view sandbox_id) override;
  void put_meta(std::string_view sandbox_id, const boost::json::object& meta) override;
  std::vector<StoredRow> list_contexts(std::string_view sandbox_id) override;
  std::optional<boost::json::object> get_context(std::string_view sandbox_id,
                                                 std::string_view id) override;
  void put_context(std::string_view sandbox_id, std::string_view id,
                   const boost::json::object& row) override;
  bool delete_context(std::string_view sandbox_id, std::string_view id) override;
  void wipe(std::string_view sandbox_id) override;
  std::vector<std::string> list_sandbox_ids() override;
  std::size_t count_sandboxes() override;
  std::optional<std::int64_t> get_alarm(std::string_view sandbox_id) override;
  void set_alarm(std::string_view sandbox_id, std::optional<std::int64_t> deadline_ms) override;
  std::vector<std::pair<std::string, std::int64_t>> list_alarms() override;
  LeaseGrant acquire_lease(std::string_view sandbox_id) override;
  void release_lease(std::string_view sandbox_id) override;
  void release_all_leases() override;

 private:
  PostgresDatabase& db_;
  HeldLeases leases_;
};

// One PostgreSQL database and both stores over it.
class PostgresStorage final : public Storage {
 public:
  // Connects to `conninfo` (postgresql://USER@HOST:PORT/DB or key=value pairs). Throws
  // StorageError.
  explicit PostgresStorage(std::string conninfo, PostgresOptions options = {})
      : db_(std::make_unique<PostgresDatabase>(std::move(conninfo), std::move(options))),
        interpreters_(*db_),
        sandboxes_(*db_) {}

  InterpreterStore& interpreters() override { return interpreters_; }
  SandboxStore& sandboxes() override { return sandboxes_; }
  PostgresDatabase& database() { return *db_; }

 private:
  std::unique_ptr<PostgresDatabase> db_;
  PostgresInterpreterStore interpreters_;
  PostgresSandboxStore sandboxes_;
};

}  // namespace sandbox

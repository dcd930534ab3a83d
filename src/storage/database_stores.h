// The two views a storage backend gives over its database (InterpreterStore and SandboxStore),
// and the Storage that owns the database and both views: one definition for every backend
// (sqlite/sqlite_stores.h, postgres/postgres_stores.h name them for theirs). Both backends have
// the same semantics: same rows, orders, wipe rules and one transaction per write method. Each
// view keeps the leases it holds (scope "interpreter" / "sandbox", storage/lease.h); every write
// method checks the key's lease inside its transaction.
//
// A backend defines every member of DatabaseInterpreterStore<ItsDatabase> and
// DatabaseSandboxStore<ItsDatabase> as an explicit specialization in its own .cc files (e.g.
// `template <> void SqliteInterpreterStore::wipe(std::string_view key) {...}`) and ends each
// file with the explicit instantiation of its view; a member it leaves out is a link error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/held_leases.h"
#include "storage/interpreter_store.h"
#include "storage/sandbox_store.h"
#include "storage/storage.h"

namespace sandbox {

template <class Database>
class DatabaseInterpreterStore final : public InterpreterStore {
 public:
  // Borrows `db`, which must outlive the store.
  explicit DatabaseInterpreterStore(Database& db) : db_(db) {}

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
  Database& db_;
  HeldLeases leases_;
};

template <class Database>
class DatabaseSandboxStore final : public SandboxStore {
 public:
  // Borrows `db`, which must outlive the store.
  explicit DatabaseSandboxStore(Database& db) : db_(db) {}

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
  Database& db_;
  HeldLeases leases_;
};

// One database and both views over it: what main() wires into the servers. `location` is what
// the backend's database opens (a file path, a connection string), `options` its options.
template <class Database, class Options>
class DatabaseStorage final : public Storage {
 public:
  // Throws StorageError.
  explicit DatabaseStorage(const std::string& location, Options options = {})
      : db_(std::make_unique<Database>(location, std::move(options))),
        interpreters_(*db_),
        sandboxes_(*db_) {}

  InterpreterStore& interpreters() override { return interpreters_; }
  SandboxStore& sandboxes() override { return sandboxes_; }
  Database& database() { return *db_; }

 private:
  std::unique_ptr<Database> db_;
  DatabaseInterpreterStore<Database> interpreters_;
  DatabaseSandboxStore<Database> sandboxes_;
};

}  // namespace sandbox

// SandboxStore: durable state of the caller side, per sandbox id
// (docs/snapshot-format.md#sandbox-storage, "sandbox format 1", with the sandbox id added so one
// database serves every sandbox).
//
// Per sandbox id it holds: the persisted /workspace as flat rows (a directory is a row with no
// data and updatedAt 0, exactly Workspace::serialize()'s rows), the sandbox meta (one JSON
// object), the context registry rows (JSON), and an optional idle-expiry deadline.
//
// Durability invariants (each write method is one transaction):
//  1. persist() applies a workspace diff and the optional context row atomically.
//  2. wipe() removes everything of one sandbox id atomically; other ids are untouched.
//  3. A method that throws StorageError had no effect.
//
// Ownership among several nodes: as InterpreterStore (storage/lease.h), per sandbox id.
//
// Thread-safety: as InterpreterStore (safe from any thread; one owner per sandbox id).
// Errors: StorageError.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>

#include <sandbox/workspace.h>

#include "storage/interpreter_store.h"

namespace sandbox {

// Meta rows whose JSON `format` is not exactly this are wiped at open
// (docs/snapshot-format.md#schema-check).
inline constexpr int kSandboxStorageFormat = 1;

// What changed in a workspace since the last persist: rows to upsert (files with data,
// directories without) and absolute paths whose rows to delete. Deletions apply first.
struct WorkspacePersist {
  std::vector<WorkspaceRow> upserts;
  std::vector<std::string> deletes;
};

class SandboxStore {
 public:
  virtual ~SandboxStore() = default;

  // Every workspace row, in the order the rows were first written (an upsert keeps the
  // position; delete + re-add moves to the end), ready for Workspace::restore_from.
  virtual std::vector<WorkspaceRow> load_files(std::string_view sandbox_id) = 0;
  // Invariant 1. `context`, when given, is upserted as a context row.
  virtual void persist(std::string_view sandbox_id, const WorkspacePersist& diff,
                       const std::optional<StoredRow>& context) = 0;

  virtual std::optional<boost::json::object> get_meta(std::string_view sandbox_id) = 0;
  virtual void put_meta(std::string_view sandbox_id, const boost::json::object& meta) = 0;

  // Context registry rows, in creation order.
  virtual std::vector<StoredRow> list_contexts(std::string_view sandbox_id) = 0;
  virtual std::optional<boost::json::object> get_context(std::string_view sandbox_id,
                                                         std::string_view id) = 0;
  virtual void put_context(std::string_view sandbox_id, std::string_view id,
                           const boost::json::object& row) = 0;
  // Returns whether a row existed.
  virtual bool delete_context(std::string_view sandbox_id, std::string_view id) = 0;

  // Removes files, meta, contexts and alarm of `sandbox_id`.
  virtual void wipe(std::string_view sandbox_id) = 0;
  // Sandbox ids with any stored state, sorted.
  virtual std::vector<std::string> list_sandbox_ids() = 0;
  // How many sandboxes have a meta row (what SandboxOptions::max_sandboxes bounds).
  virtual std::size_t count_sandboxes() = 0;

  virtual std::optional<std::int64_t> get_alarm(std::string_view sandbox_id) = 0;
  virtual void set_alarm(std::string_view sandbox_id, std::optional<std::int64_t> deadline_ms) = 0;
  virtual std::vector<std::pair<std::string, std::int64_t>> list_alarms() = 0;

  // ---- Ownership (storage/lease.h), as InterpreterStore's, per sandbox id ---------------------
  virtual LeaseGrant acquire_lease(std::string_view /*sandbox_id*/) { return {}; }
  virtual void release_lease(std::string_view /*sandbox_id*/) {}
  virtual void release_all_leases() {}
};

}  // namespace sandbox

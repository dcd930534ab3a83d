#include "storage/json_row.h"
#include "storage/sqlite/sqlite_stores.h"
#include "storage/storage_error.h"

namespace sandbox {
namespace {

using Tx = SqliteDatabase::Transaction;

constexpr std::string_view kScope = "sandbox";

void upsert_context(SqliteDatabase& db, std::string_view sandbox_id, std::string_view id,
                    const boost::json::object& row) {
  const std::string text = json_text(row);
  StatementScope st(
      db.statement("INSERT INTO sandbox_contexts (sandbox_id, id, value) VALUES (?1, ?2, ?3) "
                   "ON CONFLICT (sandbox_id, id) DO UPDATE SET value = excluded.value"));
  st->bind(1, sandbox_id);
  st->bind(2, id);
  st->bind(3, text);
  db.write(*st);
}

}  // namespace

template <>
std::vector<WorkspaceRow> SqliteSandboxStore::load_files(std::string_view sandbox_id) {
  const auto lock = db_.lock();
  StatementScope st(db_.statement(
      "SELECT path, data, updated_at FROM files WHERE sandbox_id = ?1 ORDER BY rowid"));
  st->bind(1, sandbox_id);
  std::vector<WorkspaceRow> rows;
  while (st->step()) {
    WorkspaceRow row;
    row.path = st->column_text(0);
    if (!st->column_is_null(1)) row.data = st->column_blob(1);
    row.updated_at = st->column_int(2);
    rows.push_back(std::move(row));
  }
  return rows;
}

template <>
void SqliteSandboxStore::persist(std::string_view sandbox_id, const WorkspacePersist& diff,
                                 const std::optional<StoredRow>& context) {
  const auto lock = db_.lock();
  Tx tx(db_);
  db_.check_fence(kScope, sandbox_id, leases_);
  for (const auto& path : diff.deletes) {
    StatementScope st(db_.statement("DELETE FROM files WHERE sandbox_id = ?1 AND path = ?2"));
    st->bind(1, sandbox_id);
    st->bind(2, path);
    db_.write(*st);
  }
  for (const auto& row : diff.upserts) {
    StatementScope st(db_.statement(
        "INSERT INTO files (sandbox_id, path, data, updated_at) VALUES (?1, ?2, ?3, ?4) "
        "ON CONFLICT (sandbox_id, path) DO UPDATE SET data = excluded.data, "
        "updated_at = excluded.updated_at"));
    st->bind(1, sandbox_id);
    st->bind(2, row.path);
    if (row.data) {
      st->bind_blob(3, *row.data);
      st->bind(4, row.updated_at);
    } else {
      st->bind_null(3);
      st->bind(4, std::int64_t{0});
    }
    db_.write(*st);
  }
  if (context) upsert_context(db_, sandbox_id, context->id, context->value);
  tx.commit();
}

template <>
std::optional<boost::json::object> SqliteSandboxStore::get_meta(std::string_view sandbox_id) {
  const auto lock = db_.lock();
  StatementScope st(db_.statement("SELECT value FROM sandbox_meta WHERE sandbox_id = ?1"));
  st->bind(1, sandbox_id);
  if (!st->step()) return std::nullopt;
  return parse_json_row(st->column_text(0), "sandbox meta");
}

template <>
void SqliteSandboxStore::put_meta(std::string_view sandbox_id, const boost::json::object& meta) {
  const std::string text = json_text(meta);
  const auto lock = db_.lock();
  Tx tx(db_);
  db_.check_fence(kScope, sandbox_id, leases_);
  {
    StatementScope st(
        db_.statement("INSERT INTO sandbox_meta (sandbox_id, value) VALUES (?1, ?2) "
                      "ON CONFLICT (sandbox_id) DO UPDATE SET value = excluded.value"));
    st->bind(1, sandbox_id);
    st->bind(2, text);
    db_.write(*st);
  }
  tx.commit();
}

template <>
std::vector<StoredRow> SqliteSandboxStore::list_contexts(std::string_view sandbox_id) {
  const auto lock = db_.lock();
  StatementScope st(
      db_.statement("SELECT id, value FROM sandbox_contexts WHERE sandbox_id = ?1 ORDER BY rowid"));
  st->bind(1, sandbox_id);
  std::vector<StoredRow> rows;
  while (st->step()) {
    rows.push_back({st->column_text(0), parse_json_row(st->column_text(1), "context row")});
  }
  return rows;
}

template <>
std::optional<boost::json::object> SqliteSandboxStore::get_context(std::string_view sandbox_id,
                                                                   std::string_view id) {
  const auto lock = db_.lock();
  StatementScope st(
      db_.statement("SELECT value FROM sandbox_contexts WHERE sandbox_id = ?1 AND id = ?2"));
  st->bind(1, sandbox_id);
  st->bind(2, id);
  if (!st->step()) return std::nullopt;
  return parse_json_row(st->column_text(0), "context row");
}

template <>
void SqliteSandboxStore::put_context(std::string_view sandbox_id, std::string_view id,
                                     const boost::json::object& row) {
  const auto lock = db_.lock();
  Tx tx(db_);
  db_.check_fence(kScope, sandbox_id, leases_);
  upsert_context(db_, sandbox_id, id, row);
  tx.commit();
}

template <>
bool SqliteSandboxStore::delete_context(std::string_view sandbox_id, std::string_view id) {
  const auto lock = db_.lock();
  Tx tx(db_);
  db_.check_fence(kScope, sandbox_id, leases_);
  std::int64_t deleted = 0;
  {
    StatementScope st(
        db_.statement("DELETE FROM sandbox_contexts WHERE sandbox_id = ?1 AND id = ?2"));
    st->bind(1, sandbox_id);
    st->bind(2, id);
    deleted = db_.write(*st);
  }
  tx.commit();
  return deleted > 0;
}

template <>
void SqliteSandboxStore::wipe(std::string_view sandbox_id) {
  const auto lock = db_.lock();
  Tx tx(db_);
  db_.check_fence(kScope, sandbox_id, leases_);
  for (const char* sql : {"DELETE FROM files WHERE sandbox_id = ?1",
                          "DELETE FROM sandbox_contexts WHERE sandbox_id = ?1",
                          "DELETE FROM sandbox_meta WHERE sandbox_id = ?1",
                          "DELETE FROM sandbox_alarms WHERE sandbox_id = ?1"}) {
    StatementScope st(db_.statement(sql));
    st->bind(1, sandbox_id);
    db_.write(*st);
  }
  tx.commit();
}

template <>
std::vector<std::string> SqliteSandboxStore::list_sandbox_ids() {
  const auto lock = db_.lock();
  StatementScope st(db_.statement(
      "SELECT sandbox_id FROM sandbox_meta UNION SELECT sandbox_id FROM sandbox_contexts "
      "UNION SELECT sandbox_id FROM files UNION SELECT sandbox_id FROM sandbox_alarms "
      "ORDER BY 1"));
  std::vector<std::string> ids;
  while (st->step()) ids.push_back(st->column_text(0));
  return ids;
}

template <>
std::size_t SqliteSandboxStore::count_sandboxes() {
  const auto lock = db_.lock();
  StatementScope st(db_.statement("SELECT COUNT(*) FROM sandbox_meta"));
  if (!st->step()) return 0;
  return static_cast<std::size_t>(st->column_int(0));
}

template <>
std::optional<std::int64_t> SqliteSandboxStore::get_alarm(std::string_view sandbox_id) {
  const auto lock = db_.lock();
  StatementScope st(db_.statement("SELECT deadline FROM sandbox_alarms WHERE sandbox_id = ?1"));
  st->bind(1, sandbox_id);
  if (!st->step()) return std::nullopt;
  return st->column_int(0);
}

template <>
void SqliteSandboxStore::set_alarm(std::string_view sandbox_id,
                                   std::optional<std::int64_t> deadline_ms) {
  const auto lock = db_.lock();
  Tx tx(db_);
  db_.check_fence(kScope, sandbox_id, leases_);
  if (!deadline_ms) {
    StatementScope st(db_.statement("DELETE FROM sandbox_alarms WHERE sandbox_id = ?1"));
    st->bind(1, sandbox_id);
    db_.write(*st);
  } else {
    StatementScope st(
        db_.statement("INSERT INTO sandbox_alarms (sandbox_id, deadline) VALUES (?1, ?2) "
                      "ON CONFLICT (sandbox_id) DO UPDATE SET deadline = excluded.deadline"));
    st->bind(1, sandbox_id);
    st->bind(2, *deadline_ms);
    db_.write(*st);
  }
  tx.commit();
}

template <>
std::vector<std::pair<std::string, std::int64_t>> SqliteSandboxStore::list_alarms() {
  const auto lock = db_.lock();
  StatementScope st(db_.statement(
      "SELECT sandbox_id, deadline FROM sandbox_alarms ORDER BY deadline, sandbox_id"));
  std::vector<std::pair<std::string, std::int64_t>> out;
  while (st->step()) out.emplace_back(st->column_text(0), st->column_int(1));
  return out;
}

template <>
LeaseGrant SqliteSandboxStore::acquire_lease(std::string_view sandbox_id) {
  return db_.acquire_lease(kScope, sandbox_id, leases_);
}

template <>
void SqliteSandboxStore::release_lease(std::string_view sandbox_id) {
  db_.release_lease(kScope, sandbox_id, leases_);
}

template <>
void SqliteSandboxStore::release_all_leases() {
  for (const auto& [id, token] : leases_.all()) release_lease(id);
}

template class DatabaseSandboxStore<SqliteDatabase>;

}  // namespace sandbox

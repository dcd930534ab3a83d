#include "storage/json_row.h"
#include "storage/sqlite/sqlite_stores.h"
#include "storage/storage_error.h"

namespace sandbox {
namespace {

using Tx = SqliteDatabase::Transaction;

constexpr std::string_view kScope = "interpreter";

void upsert_context(SqliteDatabase& db, std::string_view key, std::string_view id,
                    const boost::json::object& row) {
  const std::string text = json_text(row);
  StatementScope st(
      db.statement("INSERT INTO contexts (key, id, value) VALUES (?1, ?2, ?3) "
                   "ON CONFLICT (key, id) DO UPDATE SET value = excluded.value"));
  st->bind(1, key);
  st->bind(2, id);
  st->bind(3, text);
  db.write(*st);
}

void delete_chunks(SqliteDatabase& db, std::string_view key, std::string_view context_id) {
  StatementScope st(db.statement("DELETE FROM chunks WHERE key = ?1 AND context_id = ?2"));
  st->bind(1, key);
  st->bind(2, context_id);
  db.write(*st);
}

}  // namespace

template <>
std::optional<boost::json::object> SqliteInterpreterStore::get_meta(std::string_view key) {
  const auto lock = db_.lock();
  StatementScope st(db_.statement("SELECT value FROM meta WHERE key = ?1"));
  st->bind(1, key);
  if (!st->step()) return std::nullopt;
  return parse_json_row(st->column_text(0), "interpreter meta");
}

template <>
void SqliteInterpreterStore::put_meta(std::string_view key, const boost::json::object& meta) {
  const std::string text = json_text(meta);
  const auto lock = db_.lock();
  Tx tx(db_);
  db_.check_fence(kScope, key, leases_);
  {
    StatementScope st(
        db_.statement("INSERT INTO meta (key, value) VALUES (?1, ?2) "
                      "ON CONFLICT (key) DO UPDATE SET value = excluded.value"));
    st->bind(1, key);
    st->bind(2, text);
    db_.write(*st);
  }
  tx.commit();
}

template <>
std::vector<StoredRow> SqliteInterpreterStore::list_contexts(std::string_view key) {
  const auto lock = db_.lock();
  StatementScope st(db_.statement("SELECT id, value FROM contexts WHERE key = ?1 ORDER BY rowid"));
  st->bind(1, key);
  std::vector<StoredRow> rows;
  while (st->step()) {
    rows.push_back({st->column_text(0), parse_json_row(st->column_text(1), "context row")});
  }
  return rows;
}

template <>
std::optional<boost::json::object> SqliteInterpreterStore::get_context(std::string_view key,
                                                                       std::string_view id) {
  const auto lock = db_.lock();
  StatementScope st(db_.statement("SELECT value FROM contexts WHERE key = ?1 AND id = ?2"));
  st->bind(1, key);
  st->bind(2, id);
  if (!st->step()) return std::nullopt;
  return parse_json_row(st->column_text(0), "context row");
}

template <>
void SqliteInterpreterStore::put_context(std::string_view key, std::string_view id,
                                         const boost::json::object& row) {
  const auto lock = db_.lock();
  Tx tx(db_);
  db_.check_fence(kScope, key, leases_);
  upsert_context(db_, key, id, row);
  tx.commit();
}

template <>
bool SqliteInterpreterStore::delete_context(std::string_view key, std::string_view id) {
  const auto lock = db_.lock();
  Tx tx(db_);
  db_.check_fence(kScope, key, leases_);
  delete_chunks(db_, key, id);
  std::int64_t deleted = 0;
  {
    StatementScope st(db_.statement("DELETE FROM contexts WHERE key = ?1 AND id = ?2"));
    st->bind(1, key);
    st->bind(2, id);
    deleted = db_.write(*st);
  }
  tx.commit();
  return deleted > 0;
}

template <>
StoredChunks SqliteInterpreterStore::read_chunks(std::string_view key,
                                                 std::string_view context_id) {
  const auto lock = db_.lock();
  StatementScope st(db_.statement(
      "SELECT chunk, data FROM chunks WHERE key = ?1 AND context_id = ?2 ORDER BY chunk"));
  st->bind(1, key);
  st->bind(2, context_id);
  StoredChunks chunks;
  while (st->step()) {
    const std::int64_t index = st->column_int(0);
    if (index < 0 || index > static_cast<std::int64_t>(UINT32_MAX)) {
      throw StorageError("stored chunk index " + std::to_string(index) + " is out of range");
    }
    chunks.emplace(static_cast<std::uint32_t>(index), st->column_blob(1));
  }
  return chunks;
}

template <>
void SqliteInterpreterStore::write_snapshot(std::string_view key, std::string_view context_id,
                                            const SnapshotWrite& write) {
  const auto lock = db_.lock();
  Tx tx(db_);
  db_.check_fence(kScope, key, leases_);
  for (const auto chunk : write.removed) {
    StatementScope st(
        db_.statement("DELETE FROM chunks WHERE key = ?1 AND context_id = ?2 AND chunk = ?3"));
    st->bind(1, key);
    st->bind(2, context_id);
    st->bind(3, static_cast<std::int64_t>(chunk));
    db_.write(*st);
  }
  for (const auto& c : write.upserts) {
    StatementScope st(
        db_.statement("INSERT INTO chunks (key, context_id, chunk, data) VALUES (?1, ?2, ?3, ?4) "
                      "ON CONFLICT (key, context_id, chunk) DO UPDATE SET data = excluded.data"));
    st->bind(1, key);
    st->bind(2, context_id);
    st->bind(3, static_cast<std::int64_t>(c.chunk));
    st->bind_blob(4, c.data);
    db_.write(*st);
  }
  upsert_context(db_, key, context_id, write.context_row);
  tx.commit();
}

template <>
void SqliteInterpreterStore::drop_snapshot(std::string_view key, std::string_view context_id,
                                           const std::optional<boost::json::object>& row) {
  const auto lock = db_.lock();
  Tx tx(db_);
  db_.check_fence(kScope, key, leases_);
  delete_chunks(db_, key, context_id);
  if (row) upsert_context(db_, key, context_id, *row);
  tx.commit();
}

template <>
void SqliteInterpreterStore::wipe(std::string_view key) {
  const auto lock = db_.lock();
  Tx tx(db_);
  db_.check_fence(kScope, key, leases_);
  for (const char* sql :
       {"DELETE FROM chunks WHERE key = ?1", "DELETE FROM contexts WHERE key = ?1",
        "DELETE FROM meta WHERE key = ?1", "DELETE FROM alarms WHERE key = ?1"}) {
    StatementScope st(db_.statement(sql));
    st->bind(1, key);
    db_.write(*st);
  }
  tx.commit();
}

template <>
std::vector<std::string> SqliteInterpreterStore::list_keys() {
  const auto lock = db_.lock();
  StatementScope st(db_.statement(
      "SELECT key FROM meta UNION SELECT key FROM contexts UNION SELECT key FROM chunks "
      "UNION SELECT key FROM alarms ORDER BY 1"));
  std::vector<std::string> keys;
  while (st->step()) keys.push_back(st->column_text(0));
  return keys;
}

template <>
std::size_t SqliteInterpreterStore::count_keys_with_contexts() {
  const auto lock = db_.lock();
  StatementScope st(db_.statement("SELECT COUNT(DISTINCT key) FROM contexts"));
  if (!st->step()) return 0;
  return static_cast<std::size_t>(st->column_int(0));
}

template <>
std::optional<std::int64_t> SqliteInterpreterStore::get_alarm(std::string_view key) {
  const auto lock = db_.lock();
  StatementScope st(db_.statement("SELECT deadline FROM alarms WHERE key = ?1"));
  st->bind(1, key);
  if (!st->step()) return std::nullopt;
  return st->column_int(0);
}

template <>
void SqliteInterpreterStore::set_alarm(std::string_view key,
                                       std::optional<std::int64_t> deadline_ms) {
  const auto lock = db_.lock();
  Tx tx(db_);
  db_.check_fence(kScope, key, leases_);
  if (!deadline_ms) {
    StatementScope st(db_.statement("DELETE FROM alarms WHERE key = ?1"));
    st->bind(1, key);
    db_.write(*st);
  } else {
    StatementScope st(
        db_.statement("INSERT INTO alarms (key, deadline) VALUES (?1, ?2) "
                      "ON CONFLICT (key) DO UPDATE SET deadline = excluded.deadline"));
    st->bind(1, key);
    st->bind(2, *deadline_ms);
    db_.write(*st);
  }
  tx.commit();
}

template <>
std::vector<std::pair<std::string, std::int64_t>> SqliteInterpreterStore::list_alarms() {
  const auto lock = db_.lock();
  StatementScope st(db_.statement("SELECT key, deadline FROM alarms ORDER BY deadline, key"));
  std::vector<std::pair<std::string, std::int64_t>> out;
  while (st->step()) out.emplace_back(st->column_text(0), st->column_int(1));
  return out;
}

template <>
LeaseGrant SqliteInterpreterStore::acquire_lease(std::string_view key) {
  return db_.acquire_lease(kScope, key, leases_);
}

template <>
void SqliteInterpreterStore::release_lease(std::string_view key) {
  db_.release_lease(kScope, key, leases_);
}

template <>
void SqliteInterpreterStore::release_all_leases() {
  for (const auto& [key, token] : leases_.all()) release_lease(key);
}

template class DatabaseInterpreterStore<SqliteDatabase>;

}  // namespace sandbox

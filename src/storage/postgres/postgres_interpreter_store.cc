#include "storage/json_row.h"
#include "storage/postgres/postgres_stores.h"
#include "storage/storage_error.h"

namespace sandbox {
namespace {

using Session = PostgresDatabase::Session;
using Tx = PostgresDatabase::Transaction;

constexpr std::string_view kScope = "interpreter";

void upsert_context(Session& s, std::string_view key, std::string_view id,
                    const boost::json::object& row) {
  s.write(
      "INSERT INTO contexts (key, id, value) VALUES ($1, $2, $3) "
      "ON CONFLICT (key, id) DO UPDATE SET value = excluded.value",
      PgParams().text(key).text(id).text(json_text(row)));
}

void delete_chunks(Session& s, std::string_view key, std::string_view context_id) {
  s.write("DELETE FROM chunks WHERE key = $1 AND context_id = $2",
          PgParams().text(key).text(context_id));
}

}  // namespace

template <>
std::optional<boost::json::object> PostgresInterpreterStore::get_meta(std::string_view key) {
  Session s(db_);
  const PgResult r = s.query("SELECT value FROM meta WHERE key = $1", PgParams().text(key));
  if (r.rows() == 0) return std::nullopt;
  return parse_json_row(r.text(0, 0), "interpreter meta");
}

template <>
void PostgresInterpreterStore::put_meta(std::string_view key, const boost::json::object& meta) {
  Session s(db_);
  Tx tx(s);
  db_.check_fence(s, kScope, key, leases_);
  s.write(
      "INSERT INTO meta (key, value) VALUES ($1, $2) "
      "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      PgParams().text(key).text(json_text(meta)));
  tx.commit();
}

template <>
std::vector<StoredRow> PostgresInterpreterStore::list_contexts(std::string_view key) {
  Session s(db_);
  const PgResult r =
      s.query("SELECT id, value FROM contexts WHERE key = $1 ORDER BY seq", PgParams().text(key));
  std::vector<StoredRow> rows;
  rows.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    rows.push_back({r.text(i, 0), parse_json_row(r.text(i, 1), "context row")});
  }
  return rows;
}

template <>
std::optional<boost::json::object> PostgresInterpreterStore::get_context(std::string_view key,
                                                                         std::string_view id) {
  if (!pg_storable_text(key) || !pg_storable_text(id)) return std::nullopt;
  Session s(db_);
  const PgResult r = s.query("SELECT value FROM contexts WHERE key = $1 AND id = $2",
                             PgParams().text(key).text(id));
  if (r.rows() == 0) return std::nullopt;
  return parse_json_row(r.text(0, 0), "context row");
}

template <>
void PostgresInterpreterStore::put_context(std::string_view key, std::string_view id,
                                           const boost::json::object& row) {
  Session s(db_);
  Tx tx(s);
  db_.check_fence(s, kScope, key, leases_);
  upsert_context(s, key, id, row);
  tx.commit();
}

template <>
bool PostgresInterpreterStore::delete_context(std::string_view key, std::string_view id) {
  if (!pg_storable_text(key) || !pg_storable_text(id)) return false;
  Session s(db_);
  Tx tx(s);
  db_.check_fence(s, kScope, key, leases_);
  delete_chunks(s, key, id);
  const std::int64_t deleted =
      s.write("DELETE FROM contexts WHERE key = $1 AND id = $2", PgParams().text(key).text(id));
  tx.commit();
  return deleted > 0;
}

template <>
StoredChunks PostgresInterpreterStore::read_chunks(std::string_view key,
                                                   std::string_view context_id) {
  if (!pg_storable_text(key) || !pg_storable_text(context_id)) return {};
  Session s(db_);
  const PgResult r =
      s.query("SELECT chunk, data FROM chunks WHERE key = $1 AND context_id = $2 ORDER BY chunk",
              PgParams().text(key).text(context_id));
  StoredChunks chunks;
  for (int i = 0; i < r.rows(); ++i) {
    const std::int64_t index = r.int64(i, 0);
    if (index < 0 || index > static_cast<std::int64_t>(UINT32_MAX)) {
      throw StorageError("stored chunk index " + std::to_string(index) + " is out of range");
    }
    chunks.emplace(static_cast<std::uint32_t>(index), r.bytes(i, 1));
  }
  return chunks;
}

template <>
void PostgresInterpreterStore::write_snapshot(std::string_view key, std::string_view context_id,
                                              const SnapshotWrite& write) {
  Session s(db_);
  Tx tx(s);
  db_.check_fence(s, kScope, key, leases_);
  for (const auto chunk : write.removed) {
    s.write("DELETE FROM chunks WHERE key = $1 AND context_id = $2 AND chunk = $3",
            PgParams().text(key).text(context_id).int64(chunk));
  }
  for (const auto& c : write.upserts) {
    s.write(
        "INSERT INTO chunks (key, context_id, chunk, data) VALUES ($1, $2, $3, $4) "
        "ON CONFLICT (key, context_id, chunk) DO UPDATE SET data = excluded.data",
        PgParams().text(key).text(context_id).int64(c.chunk).bytes(c.data));
  }
  upsert_context(s, key, context_id, write.context_row);
  tx.commit();
}

template <>
void PostgresInterpreterStore::drop_snapshot(std::string_view key, std::string_view context_id,
                                             const std::optional<boost::json::object>& row) {
  Session s(db_);
  Tx tx(s);
  db_.check_fence(s, kScope, key, leases_);
  delete_chunks(s, key, context_id);
  if (row) upsert_context(s, key, context_id, *row);
  tx.commit();
}

template <>
void PostgresInterpreterStore::wipe(std::string_view key) {
  Session s(db_);
  Tx tx(s);
  db_.check_fence(s, kScope, key, leases_);
  for (const char* sql :
       {"DELETE FROM chunks WHERE key = $1", "DELETE FROM contexts WHERE key = $1",
        "DELETE FROM meta WHERE key = $1", "DELETE FROM alarms WHERE key = $1"}) {
    s.write(sql, PgParams().text(key));
  }
  tx.commit();
}

template <>
std::vector<std::string> PostgresInterpreterStore::list_keys() {
  Session s(db_);
  const PgResult r = s.query(
      "SELECT key FROM (SELECT key FROM meta UNION SELECT key FROM contexts "
      "UNION SELECT key FROM chunks UNION SELECT key FROM alarms) AS k ORDER BY key COLLATE \"C\"");
  std::vector<std::string> keys;
  keys.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) keys.push_back(r.text(i, 0));
  return keys;
}

template <>
std::size_t PostgresInterpreterStore::count_keys_with_contexts() {
  Session s(db_);
  const PgResult r = s.query("SELECT COUNT(DISTINCT key) FROM contexts");
  return static_cast<std::size_t>(r.int64(0, 0));
}

template <>
std::optional<std::int64_t> PostgresInterpreterStore::get_alarm(std::string_view key) {
  Session s(db_);
  const PgResult r = s.query("SELECT deadline FROM alarms WHERE key = $1", PgParams().text(key));
  if (r.rows() == 0) return std::nullopt;
  return r.int64(0, 0);
}

template <>
void PostgresInterpreterStore::set_alarm(std::string_view key,
                                         std::optional<std::int64_t> deadline_ms) {
  Session s(db_);
  Tx tx(s);
  db_.check_fence(s, kScope, key, leases_);
  if (!deadline_ms) {
    s.write("DELETE FROM alarms WHERE key = $1", PgParams().text(key));
  } else {
    s.write(
        "INSERT INTO alarms (key, deadline) VALUES ($1, $2) "
        "ON CONFLICT (key) DO UPDATE SET deadline = excluded.deadline",
        PgParams().text(key).int64(*deadline_ms));
  }
  tx.commit();
}

template <>
std::vector<std::pair<std::string, std::int64_t>> PostgresInterpreterStore::list_alarms() {
  Session s(db_);
  const PgResult r =
      s.query("SELECT key, deadline FROM alarms ORDER BY deadline, key COLLATE \"C\"");
  std::vector<std::pair<std::string, std::int64_t>> out;
  out.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) out.emplace_back(r.text(i, 0), r.int64(i, 1));
  return out;
}

template <>
LeaseGrant PostgresInterpreterStore::acquire_lease(std::string_view key) {
  return db_.acquire_lease(kScope, key, leases_);
}

template <>
void PostgresInterpreterStore::release_lease(std::string_view key) {
  db_.release_lease(kScope, key, leases_);
}

template <>
void PostgresInterpreterStore::release_all_leases() {
  for (const auto& [key, token] : leases_.all()) release_lease(key);
}

template class DatabaseInterpreterStore<PostgresDatabase>;

}  // namespace sandbox

#include "storage/json_row.h"
#include "storage/postgres/postgres_stores.h"
#include "storage/storage_error.h"

namespace sandbox {
namespace {

using Session = PostgresDatabase::Session;
using Tx = PostgresDatabase::Transaction;

constexpr std::string_view kScope = "sandbox";

void upsert_context(Session& s, std::string_view sandbox_id, std::string_view id,
                    const boost::json::object& row) {
  s.write(
      "INSERT INTO sandbox_contexts (sandbox_id, id, value) VALUES ($1, $2, $3) "
      "ON CONFLICT (sandbox_id, id) DO UPDATE SET value = excluded.value",
      PgParams().text(sandbox_id).text(id).text(json_text(row)));
}

}  // namespace

template <>
std::vector<WorkspaceRow> PostgresSandboxStore::load_files(std::string_view sandbox_id) {
  Session s(db_);
  const PgResult r =
      s.query("SELECT path, data, updated_at FROM files WHERE sandbox_id = $1 ORDER BY seq",
              PgParams().text(sandbox_id));
  std::vector<WorkspaceRow> rows;
  for (int i = 0; i < r.rows(); ++i) {
    WorkspaceRow row;
    row.path = r.text(i, 0);
    if (!r.is_null(i, 1)) row.data = r.bytes(i, 1);
    row.updated_at = r.int64(i, 2);
    rows.push_back(std::move(row));
  }
  return rows;
}

template <>
void PostgresSandboxStore::persist(std::string_view sandbox_id, const WorkspacePersist& diff,
                                   const std::optional<StoredRow>& context) {
  Session s(db_);
  Tx tx(s);
  db_.check_fence(s, kScope, sandbox_id, leases_);
  for (const auto& path : diff.deletes) {
    s.write("DELETE FROM files WHERE sandbox_id = $1 AND path = $2",
            PgParams().text(sandbox_id).text(path));
  }
  for (const auto& row : diff.upserts) {
    PgParams params;
    params.text(sandbox_id).text(row.path);
    if (row.data) {
      params.bytes(*row.data).int64(row.updated_at);
    } else {
      params.null().int64(0);
    }
    s.write(
        "INSERT INTO files (sandbox_id, path, data, updated_at) VALUES ($1, $2, $3, $4) "
        "ON CONFLICT (sandbox_id, path) DO UPDATE SET data = excluded.data, "
        "updated_at = excluded.updated_at",
        params);
  }
  if (context) upsert_context(s, sandbox_id, context->id, context->value);
  tx.commit();
}

template <>
std::optional<boost::json::object> PostgresSandboxStore::get_meta(std::string_view sandbox_id) {
  Session s(db_);
  const PgResult r =
      s.query("SELECT value FROM sandbox_meta WHERE sandbox_id = $1", PgParams().text(sandbox_id));
  if (r.rows() == 0) return std::nullopt;
  return parse_json_row(r.text(0, 0), "sandbox meta");
}

template <>
void PostgresSandboxStore::put_meta(std::string_view sandbox_id, const boost::json::object& meta) {
  Session s(db_);
  Tx tx(s);
  db_.check_fence(s, kScope, sandbox_id, leases_);
  s.write(
      "INSERT INTO sandbox_meta (sandbox_id, value) VALUES ($1, $2) "
      "ON CONFLICT (sandbox_id) DO UPDATE SET value = excluded.value",
      PgParams().text(sandbox_id).text(json_text(meta)));
  tx.commit();
}

template <>
std::vector<StoredRow> PostgresSandboxStore::list_contexts(std::string_view sandbox_id) {
  Session s(db_);
  const PgResult r =
      s.query("SELECT id, value FROM sandbox_contexts WHERE sandbox_id = $1 ORDER BY seq",
              PgParams().text(sandbox_id));
  std::vector<StoredRow> rows;
  rows.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    rows.push_back({r.text(i, 0), parse_json_row(r.text(i, 1), "context row")});
  }
  return rows;
}

template <>
std::optional<boost::json::object> PostgresSandboxStore::get_context(std::string_view sandbox_id,
                                                                     std::string_view id) {
  if (!pg_storable_text(sandbox_id) || !pg_storable_text(id)) return std::nullopt;
  Session s(db_);
  const PgResult r = s.query("SELECT value FROM sandbox_contexts WHERE sandbox_id = $1 AND id = $2",
                             PgParams().text(sandbox_id).text(id));
  if (r.rows() == 0) return std::nullopt;
  return parse_json_row(r.text(0, 0), "context row");
}

template <>
void PostgresSandboxStore::put_context(std::string_view sandbox_id, std::string_view id,
                                       const boost::json::object& row) {
  Session s(db_);
  Tx tx(s);
  db_.check_fence(s, kScope, sandbox_id, leases_);
  upsert_context(s, sandbox_id, id, row);
  tx.commit();
}

template <>
bool PostgresSandboxStore::delete_context(std::string_view sandbox_id, std::string_view id) {
  if (!pg_storable_text(sandbox_id) || !pg_storable_text(id)) return false;
  Session s(db_);
  Tx tx(s);
  db_.check_fence(s, kScope, sandbox_id, leases_);
  const std::int64_t deleted =
      s.write("DELETE FROM sandbox_contexts WHERE sandbox_id = $1 AND id = $2",
              PgParams().text(sandbox_id).text(id));
  tx.commit();
  return deleted > 0;
}

template <>
void PostgresSandboxStore::wipe(std::string_view sandbox_id) {
  Session s(db_);
  Tx tx(s);
  db_.check_fence(s, kScope, sandbox_id, leases_);
  for (const char* sql : {"DELETE FROM files WHERE sandbox_id = $1",
                          "DELETE FROM sandbox_contexts WHERE sandbox_id = $1",
                          "DELETE FROM sandbox_meta WHERE sandbox_id = $1",
                          "DELETE FROM sandbox_alarms WHERE sandbox_id = $1"}) {
    s.write(sql, PgParams().text(sandbox_id));
  }
  tx.commit();
}

template <>
std::vector<std::string> PostgresSandboxStore::list_sandbox_ids() {
  Session s(db_);
  const PgResult r = s.query(
      "SELECT sandbox_id FROM (SELECT sandbox_id FROM sandbox_meta "
      "UNION SELECT sandbox_id FROM sandbox_contexts UNION SELECT sandbox_id FROM files "
      "UNION SELECT sandbox_id FROM sandbox_alarms) AS s ORDER BY sandbox_id COLLATE \"C\"");
  std::vector<std::string> ids;
  ids.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) ids.push_back(r.text(i, 0));
  return ids;
}

template <>
std::size_t PostgresSandboxStore::count_sandboxes() {
  Session s(db_);
  const PgResult r = s.query("SELECT COUNT(*) FROM sandbox_meta");
  return static_cast<std::size_t>(r.int64(0, 0));
}

template <>
std::optional<std::int64_t> PostgresSandboxStore::get_alarm(std::string_view sandbox_id) {
  Session s(db_);
  const PgResult r = s.query("SELECT deadline FROM sandbox_alarms WHERE sandbox_id = $1",
                             PgParams().text(sandbox_id));
  if (r.rows() == 0) return std::nullopt;
  return r.int64(0, 0);
}

template <>
void PostgresSandboxStore::set_alarm(std::string_view sandbox_id,
                                     std::optional<std::int64_t> deadline_ms) {
  Session s(db_);
  Tx tx(s);
  db_.check_fence(s, kScope, sandbox_id, leases_);
  if (!deadline_ms) {
    s.write("DELETE FROM sandbox_alarms WHERE sandbox_id = $1", PgParams().text(sandbox_id));
  } else {
    s.write(
        "INSERT INTO sandbox_alarms (sandbox_id, deadline) VALUES ($1, $2) "
        "ON CONFLICT (sandbox_id) DO UPDATE SET deadline = excluded.deadline",
        PgParams().text(sandbox_id).int64(*deadline_ms));
  }
  tx.commit();
}

template <>
std::vector<std::pair<std::string, std::int64_t>> PostgresSandboxStore::list_alarms() {
  Session s(db_);
  const PgResult r = s.query(
      "SELECT sandbox_id, deadline FROM sandbox_alarms ORDER BY deadline, sandbox_id COLLATE "
      "\"C\"");
  std::vector<std::pair<std::string, std::int64_t>> out;
  out.reserve(static_cast<std::size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) out.emplace_back(r.text(i, 0), r.int64(i, 1));
  return out;
}

template <>
LeaseGrant PostgresSandboxStore::acquire_lease(std::string_view sandbox_id) {
  return db_.acquire_lease(kScope, sandbox_id, leases_);
}

template <>
void PostgresSandboxStore::release_lease(std::string_view sandbox_id) {
  db_.release_lease(kScope, sandbox_id, leases_);
}

template <>
void PostgresSandboxStore::release_all_leases() {
  for (const auto& [id, token] : leases_.all()) release_lease(id);
}

template class DatabaseSandboxStore<PostgresDatabase>;

}  // namespace sandbox

#include "storage/sqlite/sqlite_database.h"

#include <vector>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "storage/interpreter_store.h"
#include "storage/sandbox_store.h"
#include "storage/storage_error.h"

namespace sandbox {
namespace {

constexpr const char* kCreateTables = R"sql(
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS contexts (
  key TEXT NOT NULL,
  id TEXT NOT NULL,
  value TEXT NOT NULL,
  UNIQUE (key, id));
CREATE TABLE IF NOT EXISTS chunks (
  key TEXT NOT NULL,
  context_id TEXT NOT NULL,
  chunk INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (key, context_id, chunk)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS alarms (
  key TEXT PRIMARY KEY NOT NULL,
  deadline INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS files (
  sandbox_id TEXT NOT NULL,
  path TEXT NOT NULL,
  data BLOB,
  updated_at INTEGER NOT NULL,
  UNIQUE (sandbox_id, path));
CREATE TABLE IF NOT EXISTS sandbox_meta (
  sandbox_id TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sandbox_contexts (
  sandbox_id TEXT NOT NULL,
  id TEXT NOT NULL,
  value TEXT NOT NULL,
  UNIQUE (sandbox_id, id));
CREATE TABLE IF NOT EXISTS sandbox_alarms (
  sandbox_id TEXT PRIMARY KEY NOT NULL,
  deadline INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS leases (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  owner TEXT NOT NULL,
  token INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (scope, key)) WITHOUT ROWID;
)sql";

// Epoch milliseconds by SQLite's clock (julianday has millisecond resolution).
#define SANDBOX_SQLITE_NOW_MS "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"

// The JSON `format` of a stored meta value, if it is a number.
std::optional<double> json_format(const std::string& text) {
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  const auto* f = v.get_object().if_contains("format");
  if (!f || !f->is_number()) return std::nullopt;
  return f->to_number<double>();
}

}  // namespace

SqliteDatabase::SqliteDatabase(const std::string& path, SqliteOptions options)
    : options_(std::move(options)), connection_(path) {
  configure();
  check_schema();
}

void SqliteDatabase::configure() {
  connection_.exec("PRAGMA busy_timeout = " + std::to_string(options_.busy_timeout_ms));
  // WAL is refused for in-memory databases (they report "memory"); that is fine.
  connection_.exec("PRAGMA journal_mode = WAL");
  connection_.exec(options_.synchronous_full ? "PRAGMA synchronous = FULL"
                                             : "PRAGMA synchronous = NORMAL");
}

bool SqliteDatabase::has_table(const std::string& name) {
  SqliteStatement st(connection_, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1");
  st.bind(1, name);
  return st.step();
}

bool SqliteDatabase::has_column(const std::string& table, const std::string& column) {
  SqliteStatement st(connection_, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2");
  st.bind(1, table);
  st.bind(2, column);
  return st.step();
}

void SqliteDatabase::drop_all_tables() {
  std::vector<std::string> tables;
  {
    SqliteStatement st(connection_,
                       "SELECT name FROM sqlite_schema WHERE type = 'table' AND "
                       "name NOT LIKE 'sqlite\\_%' ESCAPE '\\'");
    while (st.step()) tables.push_back(st.column_text(0));
  }
  for (const auto& t : tables) {
    std::string quoted = "\"";
    for (const char c : t) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    connection_.exec("DROP TABLE " + quoted + "\"");
  }
}

void SqliteDatabase::wipe_old_keys() {
  std::vector<std::string> old_keys;
  {
    SqliteStatement st(connection_, "SELECT key, value FROM meta");
    while (st.step()) {
      const auto format = json_format(st.column_text(1));
      if (format && *format < kInterpreterStorageFormat) old_keys.push_back(st.column_text(0));
    }
  }
  for (const auto& key : old_keys) {
    for (const char* sql :
         {"DELETE FROM meta WHERE key = ?1", "DELETE FROM contexts WHERE key = ?1",
          "DELETE FROM chunks WHERE key = ?1", "DELETE FROM alarms WHERE key = ?1"}) {
      SqliteStatement st(connection_, sql);
      st.bind(1, key);
      st.step();
    }
  }
  std::vector<std::string> old_sandboxes;
  {
    SqliteStatement st(connection_, "SELECT sandbox_id, value FROM sandbox_meta");
    while (st.step()) {
      const auto format = json_format(st.column_text(1));
      if (!format || *format != kSandboxStorageFormat) old_sandboxes.push_back(st.column_text(0));
    }
  }
  for (const auto& id : old_sandboxes) {
    for (const char* sql : {"DELETE FROM files WHERE sandbox_id = ?1",
                            "DELETE FROM sandbox_meta WHERE sandbox_id = ?1",
                            "DELETE FROM sandbox_contexts WHERE sandbox_id = ?1",
                            "DELETE FROM sandbox_alarms WHERE sandbox_id = ?1"}) {
      SqliteStatement st(connection_, sql);
      st.bind(1, id);
      st.step();
    }
  }
}

void SqliteDatabase::check_schema() {
  connection_.exec("BEGIN IMMEDIATE");
  try {
    std::int64_t version = 0;
    {
      SqliteStatement st(connection_, "PRAGMA user_version");
      if (st.step()) version = st.column_int(0);
    }
    if (version > kSqliteSchemaVersion) {
      throw StorageError("database schema version " + std::to_string(version) +
                         " is newer than this server's (" + std::to_string(kSqliteSchemaVersion) +
                         "); refusing to open it");
    }
    bool any_table = false;
    {
      SqliteStatement st(connection_,
                         "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND "
                         "name NOT LIKE 'sqlite\\_%' ESCAPE '\\'");
      any_table = st.step();
    }
    const auto lacks = [&](const char* table, const char* column) {
      return has_table(table) && !has_column(table, column);
    };
    const bool legacy = (version < kSqliteSchemaVersion && any_table) || has_table("pages") ||
                        lacks("meta", "key") || lacks("contexts", "key") ||
                        lacks("chunks", "key") || lacks("chunks", "context_id") ||
                        lacks("files", "sandbox_id");
    if (legacy) drop_all_tables();
    connection_.exec(kCreateTables);
    wipe_old_keys();
    connection_.exec("PRAGMA user_version = " + std::to_string(kSqliteSchemaVersion));
    connection_.exec("COMMIT");
  } catch (...) {
    try {
      connection_.exec("ROLLBACK");
    } catch (const StorageError&) {
    }
    throw;
  }
}

SqliteStatement& SqliteDatabase::statement(std::string_view sql) {
  auto it = statements_.find(sql);
  if (it == statements_.end()) {
    it = statements_
             .emplace(std::string(sql),
                      std::make_unique<SqliteStatement>(connection_, std::string(sql)))
             .first;
  }
  return *it->second;
}

void SqliteDatabase::fault_point(std::string_view sql) {
  if (options_.fault_injector) options_.fault_injector->before_write(sql);
}

std::int64_t SqliteDatabase::write(SqliteStatement& st) {
  fault_point(st.sql());
  while (st.step()) {
  }
  return connection_.changes();
}

SqliteDatabase::Transaction::Transaction(SqliteDatabase& db) : db_(db) {
  db_.connection_.exec("BEGIN IMMEDIATE");
}

SqliteDatabase::Transaction::~Transaction() {
  if (!open_) return;
  try {
    db_.connection_.exec("ROLLBACK");
  } catch (const StorageError&) {
    // SQLite may already have rolled back (e.g. after an I/O error); nothing left to undo.
  }
}

LeaseGrant SqliteDatabase::acquire_lease(std::string_view scope, std::string_view key,
                                         HeldLeases& held) {
  const auto asked = HeldLeases::Clock::now();
  if (const auto token = held.fresh_token(key, asked)) return {*token, false};
  const std::optional<std::int64_t> before = held.token(key);
  const auto guard = lock();
  // Insert, renew (same owner and token), or take over (same owner with a token it does not
  // hold, or an expired lease): the token grows on every change of hands.
  StatementScope st(
      statement("INSERT INTO leases (scope, key, owner, token, expires_at) "
                "VALUES (?1, ?2, ?3, 1, " SANDBOX_SQLITE_NOW_MS " + ?4) "
                "ON CONFLICT (scope, key) DO UPDATE SET "
                "token = CASE WHEN leases.owner = excluded.owner AND leases.token = ?5 "
                "THEN leases.token ELSE leases.token + 1 END, "
                "owner = excluded.owner, expires_at = excluded.expires_at "
                "WHERE leases.owner = excluded.owner OR leases.expires_at <= " SANDBOX_SQLITE_NOW_MS
                " RETURNING token"));
  st->bind(1, scope);
  st->bind(2, key);
  st->bind(3, options_.lease.node_id);
  st->bind(4, options_.lease.ttl_ms);
  st->bind(5, before.value_or(0));
  fault_point(st->sql());
  if (st->step()) {
    const std::int64_t token = st->column_int(0);
    while (st->step()) {
    }
    held.record(key, token, asked, options_.lease.ttl_ms);
    return {token, token != before.value_or(0)};
  }
  held.forget(key);
  StatementScope who(statement("SELECT owner, max(expires_at - " SANDBOX_SQLITE_NOW_MS
                               ", 0) FROM leases WHERE scope = ?1 AND key = ?2"));
  who->bind(1, scope);
  who->bind(2, key);
  std::string owner = "another node";
  std::int64_t remaining = 0;
  if (who->step() && !who->column_is_null(0)) {
    owner = who->column_text(0);
    remaining = who->column_int(1);
  }
  throw LeaseHeldError(std::string(scope) + " '" + std::string(key) + "' is owned by node '" +
                           owner + "' for another " + std::to_string(remaining) + " ms",
                       owner, remaining, std::string(scope));
}

void SqliteDatabase::release_lease(std::string_view scope, std::string_view key, HeldLeases& held) {
  const auto token = held.token(key);
  if (!token) return;
  const auto guard = lock();
  StatementScope st(
      statement("UPDATE leases SET expires_at = 0 WHERE scope = ?1 AND key = ?2 AND owner = ?3 "
                "AND token = ?4"));
  st->bind(1, scope);
  st->bind(2, key);
  st->bind(3, options_.lease.node_id);
  st->bind(4, *token);
  write(*st);
  held.forget(key, token);
}

void SqliteDatabase::check_fence(std::string_view scope, std::string_view key, HeldLeases& held) {
  const auto token = held.token(key);
  StatementScope st(statement("SELECT owner, token, expires_at > " SANDBOX_SQLITE_NOW_MS
                              " FROM leases WHERE scope = ?1 AND key = ?2"));
  st->bind(1, scope);
  st->bind(2, key);
  const bool row = st->step();
  const std::string owner = row ? st->column_text(0) : std::string();
  const bool mine = row && owner == options_.lease.node_id;
  if (token) {
    if (mine && st->column_int(1) == *token) return;
    held.forget(key, token);
    throw FencedWriteError("write to " + std::string(scope) + " '" + std::string(key) +
                           "' refused: this node's lease (token " + std::to_string(*token) +
                           ") was taken over" + (row ? " by node '" + owner + "'" : ""));
  }
  if (!row || mine || st->column_int(2) == 0) return;
  throw FencedWriteError("write to " + std::string(scope) + " '" + std::string(key) +
                         "' refused: node '" + owner + "' holds its lease");
}

void SqliteDatabase::Transaction::commit() {
  db_.fault_point("COMMIT");
  db_.connection_.exec("COMMIT");
  open_ = false;
}

}  // namespace sandbox

#include "storage/postgres/postgres_database.h"

#include <optional>
#include <string_view>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "storage/interpreter_store.h"
#include "storage/sandbox_store.h"
#include "storage/storage_error.h"

namespace sandbox {
namespace {

// Epoch milliseconds by the database server's clock: every node compares lease expiries with the
// same clock, whatever its own says.
#define SANDBOX_PG_NOW_MS "(extract(epoch from clock_timestamp()) * 1000)::bigint"

// Key of the transaction-scoped advisory lock the schema check holds (any constant of our own).
constexpr std::int64_t kSchemaLockKey = 0x53424F5853544F52;  // "SBOXSTOR"

// Every table the layout owns except `leases` and `storage_schema`, plus `pages` (an older
// layout's): the only tables a legacy wipe drops.
constexpr const char* kDataTables[] = {
    "meta",         "contexts",         "chunks",         "alarms", "files",
    "sandbox_meta", "sandbox_contexts", "sandbox_alarms", "pages"};

constexpr const char* kCreateTables[] = {
    "CREATE TABLE IF NOT EXISTS meta ("
    "  key TEXT PRIMARY KEY,"
    "  value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS contexts ("
    "  seq BIGINT GENERATED ALWAYS AS IDENTITY,"
    "  key TEXT NOT NULL,"
    "  id TEXT NOT NULL,"
    "  value TEXT NOT NULL,"
    "  PRIMARY KEY (key, id))",
    "CREATE INDEX IF NOT EXISTS contexts_by_seq ON contexts (key, seq)",
    "CREATE TABLE IF NOT EXISTS chunks ("
    "  key TEXT NOT NULL,"
    "  context_id TEXT NOT NULL,"
    "  chunk BIGINT NOT NULL,"
    "  data BYTEA NOT NULL,"
    "  PRIMARY KEY (key, context_id, chunk))",
    // The chunks are zstd already: store them out of line without pglz.
    "ALTER TABLE chunks ALTER COLUMN data SET STORAGE EXTERNAL",
    "CREATE TABLE IF NOT EXISTS alarms ("
    "  key TEXT PRIMARY KEY,"
    "  deadline BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS files ("
    "  seq BIGINT GENERATED ALWAYS AS IDENTITY,"
    "  sandbox_id TEXT NOT NULL,"
    "  path TEXT NOT NULL,"
    "  data BYTEA,"
    "  updated_at BIGINT NOT NULL,"
    "  PRIMARY KEY (sandbox_id, path))",
    "CREATE INDEX IF NOT EXISTS files_by_seq ON files (sandbox_id, seq)",
    "CREATE TABLE IF NOT EXISTS sandbox_meta ("
    "  sandbox_id TEXT PRIMARY KEY,"
    "  value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS sandbox_contexts ("
    "  seq BIGINT GENERATED ALWAYS AS IDENTITY,"
    "  sandbox_id TEXT NOT NULL,"
    "  id TEXT NOT NULL,"
    "  value TEXT NOT NULL,"
    "  PRIMARY KEY (sandbox_id, id))",
    "CREATE INDEX IF NOT EXISTS sandbox_contexts_by_seq ON sandbox_contexts (sandbox_id, seq)",
    "CREATE TABLE IF NOT EXISTS sandbox_alarms ("
    "  sandbox_id TEXT PRIMARY KEY,"
    "  deadline BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS leases ("
    "  scope TEXT NOT NULL,"
    "  key TEXT NOT NULL,"
    "  owner TEXT NOT NULL,"
    "  token BIGINT NOT NULL,"
    "  expires_at BIGINT NOT NULL,"
    "  PRIMARY KEY (scope, key))",
};

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

// ---- pool and sessions ----------------------------------------------------------------------

PostgresDatabase::PostgresDatabase(std::string conninfo, PostgresOptions options)
    : conninfo_(std::move(conninfo)), options_(std::move(options)) {
  if (options_.max_connections < 1) {
    throw StorageError("PostgreSQL: max_connections must be at least 1");
  }
  check_schema();
}

PostgresDatabase::~PostgresDatabase() = default;

std::unique_ptr<PgConnection> PostgresDatabase::take_connection() {
  std::unique_lock lock(mu_);
  for (;;) {
    if (!idle_.empty()) {
      auto c = std::move(idle_.back());
      idle_.pop_back();
      lock.unlock();
      // An idle connection may have been closed by the server since (a restart): it would fail
      // the first statement of a request that did nothing wrong, so it is closed here instead.
      if (c->still_open()) return c;
      c.reset();
      lock.lock();
      --open_connections_;
      continue;
    }
    if (open_connections_ < options_.max_connections) {
      ++open_connections_;
      lock.unlock();
      try {
        return std::make_unique<PgConnection>(conninfo_);
      } catch (...) {
        lock.lock();
        --open_connections_;
        freed_.notify_one();
        throw;
      }
    }
    freed_.wait(lock);
  }
}

void PostgresDatabase::give_back(std::unique_ptr<PgConnection> connection) {
  {
    std::lock_guard lock(mu_);
    if (connection && connection->healthy()) {
      idle_.push_back(std::move(connection));
    } else {
      --open_connections_;
    }
  }
  freed_.notify_one();
  // An unhealthy connection (if any) is closed here, outside the lock.
}

PostgresDatabase::Session::Session(PostgresDatabase& db)
    : db_(db), connection_(db.take_connection()) {}

PostgresDatabase::Session::~Session() { db_.give_back(std::move(connection_)); }

PgResult PostgresDatabase::Session::query(const std::string& sql, const PgParams& params) {
  return connection_->exec(sql, params);
}

std::int64_t PostgresDatabase::Session::write(const std::string& sql, const PgParams& params) {
  db_.fault_point(sql);
  return connection_->exec(sql, params).affected();
}

PgResult PostgresDatabase::Session::write_returning(const std::string& sql,
                                                    const PgParams& params) {
  db_.fault_point(sql);
  return connection_->exec(sql, params);
}

void PostgresDatabase::fault_point(std::string_view sql) {
  if (options_.fault_injector) options_.fault_injector->before_write(sql);
}

PostgresDatabase::Transaction::Transaction(Session& session) : session_(session) {
  session_.query("BEGIN");
}

PostgresDatabase::Transaction::~Transaction() {
  if (!open_) return;
  try {
    session_.query("ROLLBACK");
  } catch (const StorageError&) {
    // The connection broke: the server rolls back on its own, and the pool drops it.
  }
}

void PostgresDatabase::Transaction::commit() {
  session_.db_.fault_point("COMMIT");
  open_ = false;  // whatever COMMIT answers, the transaction is over
  session_.query("COMMIT");
}

// ---- schema ---------------------------------------------------------------------------------

void PostgresDatabase::check_schema() {
  Session s(*this);
  const auto has_table = [&](const std::string& name) {
    return s.query("SELECT to_regclass($1) IS NOT NULL", PgParams().text(name)).boolean(0, 0);
  };
  const auto lacks = [&](const std::string& table, const std::string& column) {
    if (!has_table(table)) return false;
    return s.query(
                "SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($1) "
                "AND attname = $2::name AND NOT attisdropped",
                PgParams().text(table).text(column))
               .rows() == 0;
  };
  s.query("BEGIN");
  try {
    s.query("SELECT pg_advisory_xact_lock($1)", PgParams().int64(kSchemaLockKey));
    s.query("CREATE TABLE IF NOT EXISTS storage_schema (version INTEGER NOT NULL)");
    const PgResult v = s.query("SELECT max(version) FROM storage_schema");
    const std::int64_t version = v.is_null(0, 0) ? 0 : v.int64(0, 0);  // 0: no row
    if (version > kPostgresSchemaVersion) {
      throw StorageError("database schema version " + std::to_string(version) +
                         " is newer than this server's (" + std::to_string(kPostgresSchemaVersion) +
                         "); refusing to open it");
    }
    bool any_table = false;
    for (const char* t : kDataTables) any_table = any_table || has_table(t);
    const bool legacy = (any_table && version < kPostgresSchemaVersion) || has_table("pages") ||
                        lacks("meta", "key") || lacks("contexts", "key") ||
                        lacks("chunks", "key") || lacks("chunks", "context_id") ||
                        lacks("files", "sandbox_id");
    if (legacy) {
      for (const char* t : kDataTables) s.query(std::string("DROP TABLE IF EXISTS ") + t);
    }
    // The DDL runs only when something is missing: even when it changes nothing, `CREATE INDEX IF
    // NOT EXISTS` locks its table against writes and `ALTER TABLE` locks it against everything,
    // each until this transaction ends, so a node starting next to busy ones would stall their
    // writes and deadlock with them (tests/cluster restarts a node under load).
    bool complete = !legacy && version == kPostgresSchemaVersion;
    for (const char* t : kDataTables) {
      if (std::string_view(t) != "pages") complete = complete && has_table(t);
    }
    for (const char* relation :
         {"leases", "contexts_by_seq", "files_by_seq", "sandbox_contexts_by_seq"}) {
      complete = complete && has_table(relation);
    }
    if (!complete) {
      for (const char* sql : kCreateTables) s.query(sql);
    }

    // Per-key format wipes.
    const PgResult metas = s.query("SELECT key, value FROM meta");
    for (int r = 0; r < metas.rows(); ++r) {
      const auto format = json_format(metas.text(r, 1));
      if (!format || *format >= kInterpreterStorageFormat) continue;
      PgParams key;
      key.text(metas.text(r, 0));
      for (const char* sql :
           {"DELETE FROM meta WHERE key = $1", "DELETE FROM contexts WHERE key = $1",
            "DELETE FROM chunks WHERE key = $1", "DELETE FROM alarms WHERE key = $1"}) {
        s.query(sql, key);
      }
    }
    const PgResult sandboxes = s.query("SELECT sandbox_id, value FROM sandbox_meta");
    for (int r = 0; r < sandboxes.rows(); ++r) {
      const auto format = json_format(sandboxes.text(r, 1));
      if (format && *format == kSandboxStorageFormat) continue;
      PgParams id;
      id.text(sandboxes.text(r, 0));
      for (const char* sql : {"DELETE FROM files WHERE sandbox_id = $1",
                              "DELETE FROM sandbox_meta WHERE sandbox_id = $1",
                              "DELETE FROM sandbox_contexts WHERE sandbox_id = $1",
                              "DELETE FROM sandbox_alarms WHERE sandbox_id = $1"}) {
        s.query(sql, id);
      }
    }
    s.query("DELETE FROM storage_schema");
    s.query("INSERT INTO storage_schema (version) VALUES ($1)",
            PgParams().int64(kPostgresSchemaVersion));
    s.query("COMMIT");
  } catch (...) {
    try {
      s.query("ROLLBACK");
    } catch (const StorageError&) {
    }
    throw;
  }
}

// ---- leases ---------------------------------------------------------------------------------

LeaseGrant PostgresDatabase::acquire_lease(std::string_view scope, std::string_view key,
                                           HeldLeases& held) {
  const auto asked = HeldLeases::Clock::now();
  if (const auto token = held.fresh_token(key, asked)) return {*token, false};
  const std::optional<std::int64_t> before = held.token(key);
  Session s(*this);
  // Insert, renew (same owner and token), or take over (same owner with a token it does not
  // hold, or an expired lease): the token grows on every change of hands. The upsert waits for
  // any write in progress that holds the row FOR SHARE (the fence).
  const PgResult r = s.write_returning(
      "INSERT INTO leases AS l (scope, key, owner, token, expires_at) "
      "VALUES ($1, $2, $3, 1, " SANDBOX_PG_NOW_MS
      " + $4) "
      "ON CONFLICT (scope, key) DO UPDATE SET "
      "token = CASE WHEN l.owner = excluded.owner AND l.token = $5 "
      "THEN l.token ELSE l.token + 1 END, "
      "owner = excluded.owner, expires_at = excluded.expires_at "
      "WHERE l.owner = excluded.owner OR l.expires_at <= " SANDBOX_PG_NOW_MS " RETURNING token",
      PgParams()
          .text(scope)
          .text(key)
          .text(options_.lease.node_id)
          .int64(options_.lease.ttl_ms)
          .int64(before.value_or(0)));
  if (r.rows() == 1) {
    const std::int64_t token = r.int64(0, 0);
    held.record(key, token, asked, options_.lease.ttl_ms);
    return {token, token != before.value_or(0)};
  }
  held.forget(key);
  const PgResult who = s.query("SELECT owner, greatest(expires_at - " SANDBOX_PG_NOW_MS
                               ", 0) FROM leases WHERE scope = $1 AND key = $2",
                               PgParams().text(scope).text(key));
  std::string owner = "another node";
  std::int64_t remaining = 0;
  if (who.rows() == 1) {
    owner = who.text(0, 0);
    remaining = who.int64(0, 1);
  }
  throw LeaseHeldError(std::string(scope) + " '" + std::string(key) + "' is owned by node '" +
                           owner + "' for another " + std::to_string(remaining) + " ms",
                       owner, remaining, std::string(scope));
}

void PostgresDatabase::release_lease(std::string_view scope, std::string_view key,
                                     HeldLeases& held) {
  const auto token = held.token(key);
  if (!token) return;
  Session s(*this);
  s.write(
      "UPDATE leases SET expires_at = 0 WHERE scope = $1 AND key = $2 AND owner = $3 "
      "AND token = $4",
      PgParams().text(scope).text(key).text(options_.lease.node_id).int64(*token));
  held.forget(key, token);
}

void PostgresDatabase::check_fence(Session& session, std::string_view scope, std::string_view key,
                                   HeldLeases& held) {
  const auto token = held.token(key);
  const PgResult r = session.query("SELECT owner, token, expires_at > " SANDBOX_PG_NOW_MS
                                   " FROM leases WHERE scope = $1 AND key = $2 FOR SHARE",
                                   PgParams().text(scope).text(key));
  const bool row = r.rows() == 1;
  const std::string owner = row ? r.text(0, 0) : std::string();
  const bool mine = row && owner == options_.lease.node_id;
  if (token) {
    if (mine && r.int64(0, 1) == *token) return;
    held.forget(key, token);
    throw FencedWriteError("write to " + std::string(scope) + " '" + std::string(key) +
                           "' refused: this node's lease (token " + std::to_string(*token) +
                           ") was taken over" + (row ? " by node '" + owner + "'" : ""));
  }
  if (!row || mine || !r.boolean(0, 2)) return;
  throw FencedWriteError("write to " + std::string(scope) + " '" + std::string(key) +
                         "' refused: node '" + owner + "' holds its lease");
}

}  // namespace sandbox

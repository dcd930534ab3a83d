#include "storage/sqlite/sqlite_handle.h"

#include <sqlite3.h>

#include "storage/storage_error.h"

namespace sandbox {

void SqliteConnection::Closer::operator()(sqlite3* db) const { sqlite3_close_v2(db); }

SqliteConnection::SqliteConnection(const std::string& path) {
  sqlite3* raw = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  db_.reset(raw);  // a handle is returned even on failure and must be closed
  if (rc != SQLITE_OK) {
    throw StorageError("cannot open SQLite database " + path + ": " +
                       (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  }
  sqlite3_extended_result_codes(raw, 1);
}

void SqliteConnection::exec(const std::string& sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    throw StorageError("SQLite: " + text + " (in: " + sql + ")");
  }
}

std::int64_t SqliteConnection::changes() const { return sqlite3_changes64(db_.get()); }

std::string SqliteConnection::error_message() const { return sqlite3_errmsg(db_.get()); }

void SqliteStatement::Finalizer::operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }

SqliteStatement::SqliteStatement(SqliteConnection& connection, std::string sql)
    : connection_(connection), sql_(std::move(sql)) {
  sqlite3_stmt* raw = nullptr;
  const int rc = sqlite3_prepare_v3(connection_.get(), sql_.data(), static_cast<int>(sql_.size()),
                                    SQLITE_PREPARE_PERSISTENT, &raw, nullptr);
  stmt_.reset(raw);
  if (rc != SQLITE_OK) {
    throw StorageError("SQLite cannot prepare: " + connection_.error_message() + " (in: " + sql_ +
                       ")");
  }
}

namespace {
void check_bind(int rc, SqliteConnection& c, const std::string& sql) {
  if (rc != SQLITE_OK)
    throw StorageError("SQLite bind: " + c.error_message() + " (in: " + sql + ")");
}
}  // namespace

void SqliteStatement::bind(int index, std::string_view text) {
  check_bind(sqlite3_bind_text64(stmt_.get(), index, text.data(), text.size(), SQLITE_TRANSIENT,
                                 SQLITE_UTF8),
             connection_, sql_);
}

void SqliteStatement::bind(int index, std::int64_t value) {
  check_bind(sqlite3_bind_int64(stmt_.get(), index, value), connection_, sql_);
}

void SqliteStatement::bind_blob(int index, std::span<const std::uint8_t> bytes) {
  // A zero-length blob is still a blob (not NULL): bind zeroblob(0) when there is no pointer.
  if (bytes.empty()) {
    check_bind(sqlite3_bind_zeroblob(stmt_.get(), index, 0), connection_, sql_);
    return;
  }
  check_bind(sqlite3_bind_blob64(stmt_.get(), index, bytes.data(), bytes.size(), SQLITE_STATIC),
             connection_, sql_);
}

void SqliteStatement::bind_null(int index) {
  check_bind(sqlite3_bind_null(stmt_.get(), index), connection_, sql_);
}

bool SqliteStatement::step() {
  const int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw StorageError("SQLite: " + connection_.error_message() + " (in: " + sql_ + ")");
}

std::string SqliteStatement::column_text(int index) const {
  const auto* p = sqlite3_column_text(stmt_.get(), index);
  const int n = sqlite3_column_bytes(stmt_.get(), index);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n))
           : std::string();
}

std::int64_t SqliteStatement::column_int(int index) const {
  return sqlite3_column_int64(stmt_.get(), index);
}

bool SqliteStatement::column_is_null(int index) const {
  return sqlite3_column_type(stmt_.get(), index) == SQLITE_NULL;
}

std::vector<std::uint8_t> SqliteStatement::column_blob(int index) const {
  const auto* p = static_cast<const std::uint8_t*>(sqlite3_column_blob(stmt_.get(), index));
  const int n = sqlite3_column_bytes(stmt_.get(), index);
  return p ? std::vector<std::uint8_t>(p, p + n) : std::vector<std::uint8_t>();
}

void SqliteStatement::reset() noexcept {
  sqlite3_reset(stmt_.get());
  sqlite3_clear_bindings(stmt_.get());
}

}  // namespace sandbox

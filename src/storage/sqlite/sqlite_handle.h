// RAII wrappers for the two SQLite C handles: SqliteConnection owns a sqlite3*, SqliteStatement
// owns a sqlite3_stmt*. Every failing call throws StorageError with SQLite's message.
//
// Thread-safety: none; the owner (SqliteDatabase) serializes use under its mutex.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace sandbox {

class SqliteConnection {
 public:
  // Opens (creating if needed) the database at `path`; ":memory:" is a private in-memory one.
  explicit SqliteConnection(const std::string& path);
  sqlite3* get() const { return db_.get(); }
  // Runs one or more statements that return no rows.
  void exec(const std::string& sql);
  // Rows changed by the most recent INSERT/UPDATE/DELETE.
  std::int64_t changes() const;
  // The message of the last failure on this connection.
  std::string error_message() const;

 private:
  struct Closer {
    void operator()(sqlite3* db) const;
  };
  std::unique_ptr<sqlite3, Closer> db_;
};

class SqliteStatement {
 public:
  SqliteStatement(SqliteConnection& connection, std::string sql);

  const std::string& sql() const { return sql_; }
  // Parameters are 1-based, as in SQLite.
  void bind(int index, std::string_view text);
  void bind(int index, std::int64_t value);
  // Borrows `bytes` until the statement is reset (no copy: chunks are 1 MiB).
  void bind_blob(int index, std::span<const std::uint8_t> bytes);
  void bind_null(int index);
  // Steps once: true when a row is available, false when done.
  bool step();
  // Columns are 0-based. Text and blob views copy out.
  std::string column_text(int index) const;
  std::int64_t column_int(int index) const;
  bool column_is_null(int index) const;
  std::vector<std::uint8_t> column_blob(int index) const;
  // Makes the statement reusable and drops bindings; never throws.
  void reset() noexcept;

 private:
  struct Finalizer {
    void operator()(sqlite3_stmt* stmt) const;
  };
  SqliteConnection& connection_;
  std::string sql_;
  std::unique_ptr<sqlite3_stmt, Finalizer> stmt_;
};

// Resets a statement when the scope ends, whatever happened.
class StatementScope {
 public:
  explicit StatementScope(SqliteStatement& st) : st_(st) {}
  ~StatementScope() { st_.reset(); }
  StatementScope(const StatementScope&) = delete;
  StatementScope& operator=(const StatementScope&) = delete;
  SqliteStatement* operator->() { return &st_; }
  SqliteStatement& operator*() { return st_; }

 private:
  SqliteStatement& st_;
};

}  // namespace sandbox

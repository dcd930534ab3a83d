// RAII wrappers for the two libpq handles: PgConnection owns a PGconn*, PgResult owns a
// PGresult*. PgParams builds the parameter arrays of a parameterized query (every value is sent
// in binary form: text as its bytes, integers as big-endian int8, bytea as raw bytes), and
// results are always requested in binary form, so no value is ever quoted into SQL text.
// Every failure throws StorageError with the server's message and SQLSTATE.
//
// Thread-safety: none; a connection is used by one thread at a time (PostgresDatabase's pool
// hands each to one caller).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

struct pg_conn;
struct pg_result;

namespace sandbox {

// Whether PostgreSQL can hold `value` in a TEXT column of a UTF8 database: valid UTF-8 without a
// NUL byte. A lookup by a key no row can have answers "absent" without a query (so a request
// carrying "\u0000" is a 404, not a 500 from the server's "invalid byte sequence").
bool pg_storable_text(std::string_view value);

class PgResult {
 public:
  explicit PgResult(pg_result* result) : result_(result) {}
  pg_result* get() const { return result_.get(); }

  int rows() const;
  // Rows an INSERT/UPDATE/DELETE changed (0 for other commands).
  std::int64_t affected() const;
  bool is_null(int row, int column) const;
  // Columns are 0-based. Text and bytea copy out; int64() accepts int2/int4/int8 columns and
  // bool() a boolean column; a NULL or a column of another type throws StorageError.
  std::string text(int row, int column) const;
  std::vector<std::uint8_t> bytes(int row, int column) const;
  std::int64_t int64(int row, int column) const;
  bool boolean(int row, int column) const;

 private:
  struct Clearer {
    void operator()(pg_result* r) const;
  };
  std::unique_ptr<pg_result, Clearer> result_;
};

// The parameters $1, $2, ... of one query, in order. Borrows nothing: values are copied.
class PgParams {
 public:
  PgParams() = default;
  // Not copyable: pointers_ points into values_, and a copy would point into the original
  // (found by ASan: a copy of a temporary's parameters sent freed memory). Moving a deque keeps
  // its elements where they are, so moves are safe.
  PgParams(const PgParams&) = delete;
  PgParams& operator=(const PgParams&) = delete;
  // std::deque's move constructor allocates (libstdc++), so it may throw; noexcept would turn
  // that bad_alloc into terminate.
  // NOLINTNEXTLINE(performance-noexcept-move-constructor)
  PgParams(PgParams&&) = default;
  PgParams& operator=(PgParams&&) = default;

  PgParams& text(std::string_view value);
  PgParams& int64(std::int64_t value);
  PgParams& bytes(std::span<const std::uint8_t> value);
  PgParams& null();

  int size() const { return static_cast<int>(types_.size()); }
  // Arrays for PQexecParams, valid while this object lives and is not changed.
  const char* const* values() const { return pointers_.data(); }
  const int* lengths() const { return lengths_.data(); }
  const int* formats() const { return formats_.data(); }
  const unsigned* types() const { return types_.data(); }

 private:
  void add(unsigned type, std::optional<std::string> value);
  std::deque<std::string> values_;  // a deque: pointers into its strings stay valid
  std::vector<const char*> pointers_;
  std::vector<int> lengths_;
  std::vector<int> formats_;
  std::vector<unsigned> types_;
};

class PgConnection {
 public:
  // Connects with a libpq connection string (a postgresql:// URI or key=value pairs). Throws
  // StorageError when the connection fails (the message names no password).
  explicit PgConnection(const std::string& conninfo);
  pg_conn* get() const { return conn_.get(); }
  // Whether the connection is still usable (not broken, not inside a failed transaction).
  bool healthy() const;
  // For a connection that sat idle: reads, without waiting, what the server sent since its last
  // statement, and answers whether it is still open. A connection whose server went away (a
  // restart, pg_terminate_backend) has been closed from the other end, and this sees it, where
  // healthy() would answer true until a statement failed on it.
  bool still_open();
  // Runs `sql` with `params`; throws StorageError unless it succeeded.
  PgResult exec(const std::string& sql, const PgParams& params = {});
  std::string error_message() const;

 private:
  struct Finisher {
    void operator()(pg_conn* c) const;
  };
  std::unique_ptr<pg_conn, Finisher> conn_;
};

}  // namespace sandbox

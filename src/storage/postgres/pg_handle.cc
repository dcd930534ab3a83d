#include "storage/postgres/pg_handle.h"

#include <cerrno>

#include <libpq-fe.h>
#include <poll.h>

#include "base/utf8.h"
#include "storage/storage_error.h"

namespace sandbox {
namespace {

// Type OIDs of the built-in types we send and read (pg_type.dat; stable across versions).
constexpr unsigned kBoolOid = 16;
constexpr unsigned kByteaOid = 17;
constexpr unsigned kInt8Oid = 20;
constexpr unsigned kInt2Oid = 21;
constexpr unsigned kInt4Oid = 23;
constexpr unsigned kTextOid = 25;

std::uint64_t read_be(const char* p, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

std::string trimmed(const char* message) {
  std::string s = message ? message : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

void ignore_notice(void*, const char*) {}

}  // namespace

bool pg_storable_text(std::string_view value) {
  return value.find('\0') == std::string_view::npos && is_valid_utf8(value);
}

void PgResult::Clearer::operator()(pg_result* r) const { PQclear(r); }

int PgResult::rows() const { return PQntuples(result_.get()); }

std::int64_t PgResult::affected() const {
  const char* n = PQcmdTuples(result_.get());
  return n && *n ? std::stoll(n) : 0;
}

bool PgResult::is_null(int row, int column) const {
  return PQgetisnull(result_.get(), row, column) != 0;
}

std::string PgResult::text(int row, int column) const {
  if (is_null(row, column)) throw StorageError("unexpected NULL in a text column");
  return std::string(PQgetvalue(result_.get(), row, column),
                     static_cast<std::size_t>(PQgetlength(result_.get(), row, column)));
}

std::vector<std::uint8_t> PgResult::bytes(int row, int column) const {
  if (is_null(row, column)) throw StorageError("unexpected NULL in a bytea column");
  const auto* p = reinterpret_cast<const std::uint8_t*>(PQgetvalue(result_.get(), row, column));
  return std::vector<std::uint8_t>(p, p + PQgetlength(result_.get(), row, column));
}

std::int64_t PgResult::int64(int row, int column) const {
  if (is_null(row, column)) throw StorageError("unexpected NULL in an integer column");
  const char* p = PQgetvalue(result_.get(), row, column);
  const int n = PQgetlength(result_.get(), row, column);
  switch (PQftype(result_.get(), column)) {
    case kInt8Oid:
      if (n == 8) return static_cast<std::int64_t>(read_be(p, 8));
      break;
    case kInt4Oid:
      if (n == 4) return static_cast<std::int32_t>(read_be(p, 4));
      break;
    case kInt2Oid:
      if (n == 2) return static_cast<std::int16_t>(read_be(p, 2));
      break;
    default:
      break;
  }
  throw StorageError("column " + std::to_string(column) + " is not an integer");
}

bool PgResult::boolean(int row, int column) const {
  if (is_null(row, column)) throw StorageError("unexpected NULL in a boolean column");
  if (PQftype(result_.get(), column) != kBoolOid || PQgetlength(result_.get(), row, column) != 1) {
    throw StorageError("column " + std::to_string(column) + " is not a boolean");
  }
  return *PQgetvalue(result_.get(), row, column) != 0;
}

void PgParams::add(unsigned type, std::optional<std::string> value) {
  types_.push_back(type);
  formats_.push_back(1);
  if (value) {
    values_.push_back(std::move(*value));
    pointers_.push_back(values_.back().data());
    lengths_.push_back(static_cast<int>(values_.back().size()));
  } else {
    pointers_.push_back(nullptr);
    lengths_.push_back(0);
  }
}

PgParams& PgParams::text(std::string_view value) {
  add(kTextOid, std::string(value));
  return *this;
}

PgParams& PgParams::int64(std::int64_t value) {
  std::string be(8, '\0');
  auto u = static_cast<std::uint64_t>(value);
  for (int i = 7; i >= 0; --i, u >>= 8)
    be[static_cast<std::size_t>(i)] = static_cast<char>(u & 0xff);
  add(kInt8Oid, std::move(be));
  return *this;
}

PgParams& PgParams::bytes(std::span<const std::uint8_t> value) {
  add(kByteaOid, std::string(reinterpret_cast<const char*>(value.data()), value.size()));
  return *this;
}

PgParams& PgParams::null() {
  add(0, std::nullopt);
  return *this;
}

void PgConnection::Finisher::operator()(pg_conn* c) const { PQfinish(c); }

PgConnection::PgConnection(const std::string& conninfo) : conn_(PQconnectdb(conninfo.c_str())) {
  if (!conn_) throw StorageError("PostgreSQL: out of memory opening a connection");
  if (PQstatus(conn_.get()) != CONNECTION_OK) {
    throw StorageError("cannot connect to PostgreSQL: " + error_message());
  }
  // Notices ("relation already exists, skipping") are not errors; libpq would print them.
  PQsetNoticeProcessor(conn_.get(), ignore_notice, nullptr);
}

bool PgConnection::healthy() const {
  return PQstatus(conn_.get()) == CONNECTION_OK && PQtransactionStatus(conn_.get()) == PQTRANS_IDLE;
}

bool PgConnection::still_open() {
  // A backend that ends sends a FATAL message and then closes its socket: the first read takes
  // the message (libpq hands it to the notice processor), a later one sees the end of the
  // stream, which turns the status to CONNECTION_BAD. An idle connection that is open has
  // nothing to read, or a few notices: the rounds are bounded either way.
  constexpr int kReadRounds = 4;
  for (int round = 0; round < kReadRounds; ++round) {
    if (!healthy()) return false;
    pollfd p{PQsocket(conn_.get()), POLLIN, 0};
    const int ready = ::poll(&p, 1, 0);
    if (ready == 0) return true;  // nothing arrived: open
    if (ready < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    // libpq keeps its socket non-blocking: this reads only what has already arrived.
    if (PQconsumeInput(conn_.get()) == 0) return false;
    (void)PQisBusy(conn_.get());  // parses what arrived (a notice, a parameter status)
  }
  return healthy();
}

std::string PgConnection::error_message() const { return trimmed(PQerrorMessage(conn_.get())); }

PgResult PgConnection::exec(const std::string& sql, const PgParams& params) {
  PgResult result(PQexecParams(conn_.get(), sql.c_str(), params.size(), params.types(),
                               params.values(), params.lengths(), params.formats(),
                               /*resultFormat=*/1));
  const ExecStatusType status = result.get() ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
  std::string message = result.get() ? trimmed(PQresultErrorMessage(result.get())) : "";
  if (message.empty()) message = error_message();
  const char* state = result.get() ? PQresultErrorField(result.get(), PG_DIAG_SQLSTATE) : nullptr;
  throw StorageError("PostgreSQL: " + message +
                     (state ? " (SQLSTATE " + std::string(state) + ")" : ""));
}

}  // namespace sandbox

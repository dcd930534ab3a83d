// Wire protocol of sandbox-workers (interpreter protocol version 1): constants, error codes and
// the JSON shapes every server and client here speaks. See docs/protocol.md#conventions.
//
// Everything in this header is a value type or a pure function, safe to use from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <sandbox/engine.h>
#include <sandbox/errors.h>

namespace sandbox {

inline constexpr int kInterpreterProtocolVersion = 1;

inline constexpr std::uint64_t kMaxCodeBytes = 65'536;
inline constexpr std::uint64_t kMaxRequestBytes = 98'304;
inline constexpr std::uint64_t kMaxFilesRequestBytes = 2'097'152;
inline constexpr std::uint64_t kMaxSyncRequestBytes = 25'165'824;
inline constexpr std::size_t kMaxContexts = 8;
// The most sandboxes one sandboxd keeps in its store (sandboxes with a meta row; over several
// nodes, in their shared database), by default; sandboxd --max-sandboxes changes it
// (SandboxOptions::max_sandboxes). Checked when a request would create a new sandbox; past it,
// 503 NO_SPACE until one is deleted or expires (issue 12).
inline constexpr std::size_t kMaxSandboxes = 10'000;
// The most interpreter keys holding code contexts one runtime's store keeps
// (InterpreterServerOptions::max_keys): 8 contexts each, so kMaxSandboxes sandboxes fit. Checked
// when POST /interpreters/:key/contexts would give a key its first context; past it, 503
// NO_SPACE (issue 12).
inline constexpr std::size_t kMaxInterpreterKeys = 100'000;
inline constexpr std::int64_t kDefaultIdleTtlMs = 86'400'000;
// The largest idle TTL (SANDBOX_IDLE_TTL_MS) taken, about 10,000 years: a larger value (1e300)
// falls back to kDefaultIdleTtlMs instead of overflowing the integer cast and now + ttl.
inline constexpr std::int64_t kMaxIdleTtlMs = 315'360'000'000'000;
inline constexpr std::uint64_t kOutputLimitBytes = 32'768;
inline constexpr std::size_t kOutputLimitChunks = 200;
inline constexpr std::uint64_t kResultLimitBytes = 65'536;
inline constexpr std::size_t kErrorMessageLimit = 2'048;
inline constexpr std::size_t kMaxContextIdLength = 128;
// Env vars (issue 12): the most variables one envVars object, a sandbox's stored set, a
// context's set or the merged set an execution sees may hold, and the most bytes of names plus
// values among them. Checked where env vars enter (POST /sandboxes/{id}/env, context creation,
// sandbox and runtime execute bodies) and on the merged set before an execution; past either,
// 400 VALIDATION_FAILED naming the limit. A value must not contain a NUL byte (400 as well): it
// cannot reach a guest's environment intact.
inline constexpr std::size_t kMaxEnvVars = 128;
inline constexpr std::uint64_t kMaxEnvBytes = 65'536;

inline constexpr std::string_view kInterpreterKeyHeader = "x-interpreter-key";
inline constexpr std::string_view kSandboxIdHeader = "x-sandbox-id";

// docs/protocol.md#errno-mapping: ENOENT -> FILE_NOT_FOUND, ..., anything unmapped ->
// FILESYSTEM_ERROR.
[[nodiscard]] ErrorCode error_code_for_errno(Errno e);
// The same mapping as kinds: ENOENT -> kFileNotFound, ..., ENAMETOOLONG -> kBadRequest.
[[nodiscard]] ErrorKind error_kind_for_errno(Errno e);

// The ErrorResponse body (docs/protocol.md#error-envelope) and the HTTP status it is sent with.
struct [[nodiscard]] ErrorResponse {
  ErrorCode code = ErrorCode::kInternalError;
  std::string message;
  boost::json::object context;
  int http_status = 500;
  std::string timestamp;  // ISO-8601
  std::optional<std::string> operation;
};

boost::json::object to_json(const ErrorResponse& e);
// Parses an ErrorResponse body; unknown codes become kInternalError with the original code kept
// in `raw_code`. Returns nullopt when the body is not an ErrorResponse-shaped object.
[[nodiscard]] std::optional<ErrorResponse> error_response_from_json(
    const boost::json::value& v, std::string* raw_code = nullptr);

// A request-level failure a server answers with an ErrorResponse. Built from an ErrorKind
// (include/sandbox/errors.h), which fixes the code and the status; the one other way to make one
// is relay(), for an answer a remote runtime sent.
class ApiError : public std::runtime_error {
 public:
  ApiError(ErrorKind kind, const std::string& message, boost::json::object context = {},
           std::optional<std::string> operation = std::nullopt)
      : std::runtime_error(message),
        kind_(kind),
        status_(error_kind_status(kind)),
        code_(error_kind_code(kind)),
        context_(std::move(context)),
        operation_(std::move(operation)) {}
  // An error answer a remote runtime (a binding) sent, to be answered on as it came: its status,
  // code, message, context, operation and timestamp are kept, whatever pair they make (a runtime
  // may answer 418 VALIDATION_FAILED). The kind is error_kind_for(code, status). Only a relay of
  // a runtime's answer uses this; every error a server raises itself is built from its kind.
  [[nodiscard]] static ApiError relay(const ErrorResponse& upstream) { return ApiError(upstream); }
  ErrorKind kind() const { return kind_; }
  int status() const { return status_; }
  ErrorCode code() const { return code_; }
  bool retryable() const { return error_kind_retryable(kind_); }
  const boost::json::object& context() const { return context_; }
  const std::optional<std::string>& operation() const { return operation_; }
  // The answer, stamped `now_ms` (a relayed answer keeps the timestamp it came with, if any).
  [[nodiscard]] ErrorResponse to_response(std::int64_t now_ms) const;

 private:
  explicit ApiError(const ErrorResponse& upstream)
      : std::runtime_error(upstream.message),
        kind_(error_kind_for(upstream.code, upstream.http_status)),
        status_(upstream.http_status),
        code_(upstream.code),
        context_(upstream.context),
        operation_(upstream.operation),
        timestamp_(upstream.timestamp.empty() ? std::nullopt
                                              : std::optional<std::string>(upstream.timestamp)) {}

  ErrorKind kind_;
  int status_;
  ErrorCode code_;
  boost::json::object context_;
  std::optional<std::string> operation_;
  std::optional<std::string> timestamp_;  // relayed answers only
};

// The kind a received ErrorResponse stands for: error_kind_for(code, http_status).
inline ErrorKind error_kind_of(const ErrorResponse& e) {
  return error_kind_for(e.code, e.http_status);
}

// docs/protocol.md#error-envelope (V4): a workspace errno failure as an ErrorResponse, of
// error_kind_for_errno(); the context gains `errno` and the error's details; `operation` is
// lifted to the top level when context carries one. `code_override` replaces the errno mapping's
// code (its status then comes from error_code_status()).
[[nodiscard]] ErrorResponse errno_error_response(
    const WorkspaceError& e, boost::json::object context, std::int64_t now_ms,
    std::optional<ErrorCode> code_override = std::nullopt);
// The same with the errno mapping replaced by `kind`.
[[nodiscard]] ErrorResponse errno_error_response(const WorkspaceError& e,
                                                 boost::json::object context, std::int64_t now_ms,
                                                 ErrorKind kind);

// The one mapping of an exception to an ErrorResponse, used by every server boundary
// (docs/errors.md#exceptions-at-the-boundaries): ApiError as itself, WorkspaceError by errno, a
// ClassifiedError (StorageError, LeaseHeldError, SnapshotError, WasmError, WorkerLostError,
// BindingError) by its kind and wire message, anything else kUnexpected (INTERNAL_ERROR 502
// "Engine execution failed": a bug to report).
[[nodiscard]] ErrorResponse error_response_for(const std::exception& e, std::int64_t now_ms);

// Language names (docs/protocol.md#stateless-execute, E7): lowercased, with aliases python3 ->
// python, js/node -> javascript, ts -> typescript.
std::string normalize_language(std::string_view language);
// Whether a request naming `requested` may run on a runtime for `runtime_language`
// (typescript is accepted by javascript runtimes).
bool language_accepted(std::string_view requested, std::string_view runtime_language);

// Env var names: ^[A-Za-z_][A-Za-z0-9_]*$
bool valid_env_key(std::string_view key);
// Interpreter keys: ^[A-Za-z0-9._-]{1,128}$
bool valid_interpreter_key(std::string_view key);

// The ExecutionResult (docs/protocol.md#execution-result), as sent for stateless executions.
struct [[nodiscard]] ExecutionResult {
  std::string code;
  std::string language;
  std::string engine;
  double duration_ms = 0;
  EngineOutcome outcome;
};

boost::json::object to_json(const Logs& logs);
boost::json::value to_json(const ResultEntry& entry);
boost::json::object to_json(const ExecutionError& error);
boost::json::object to_json(const Usage& usage);
// {code, language, engine, durationMs, logs, results, error?, usage?}
boost::json::object to_json(const ExecutionResult& result);

// What a client sees of a code context's stored snapshot (docs/protocol.md#snapshot-info): pages =
// non-zero pages, bytes = pages x 64 KiB, storedBytes = chunk rows x 1 MiB, takenAt epoch ms, stale
// when a later execution could not be snapshotted; encodedBytes (ours, absent from other runtimes
// and older records) = the bytes the chunk rows take in the store.
struct SnapshotInfo {
  std::string build;
  std::uint32_t pages = 0;
  std::uint64_t bytes = 0;
  std::uint64_t stored_bytes = 0;
  std::int64_t taken_at = 0;
  bool stale = false;
  std::optional<std::uint64_t> encoded_bytes;

  bool operator==(const SnapshotInfo&) const = default;
};

boost::json::object to_json(const SnapshotInfo& info);
// nullopt for null or anything that is not a SnapshotInfo-shaped object (a number field that is
// not an integer in its type's range included).
[[nodiscard]] std::optional<SnapshotInfo> snapshot_info_from_json(const boost::json::value& v);

// Parses an ExecutionResult-shaped object (as a client receives it). Throws ApiError 500
// INTERNAL_ERROR "Invalid sandbox response" when `results` is not an array or `logs` not an
// object, and "Invalid sandbox response: <field> ..." when durationMs is not finite or
// error.lineNumber / a usage counter is a number no integer of its type holds (1e300, 1.5).
[[nodiscard]] ExecutionResult execution_result_from_json(const boost::json::object& o);

// Splits captured text into lines on '\n', dropping one trailing empty element.
std::vector<std::string> split_lines(std::string_view text);

// Truncates to kErrorMessageLimit characters (UTF-8 aware: never splits a code point).
std::string truncate_error_message(std::string_view message);

}  // namespace sandbox

// Error kinds: the one table from what went wrong to what the wire says about it.
//
// Every failure a server here answers with an ErrorResponse (include/sandbox/protocol.h) is one
// ErrorKind. The kind fixes the wire `code`, the HTTP status and whether a client may send the
// same request again (retryable: the failure had no effect and may pass later). Servers throw
// ApiError(kind, message); the client maps the (code, status) it receives back to a kind with
// error_kind_for(). docs/errors.md is generated from this table (tools/gen_errors_doc; a test
// fails when the committed file differs).
//
// ErrorCode is the closed set of wire codes (docs/protocol.md#error-codes, docs/errors.md "Wire
// codes"); several kinds share a code (VALIDATION_FAILED is sent with 400, 401, 404, 405, 413
// and 415).
//
// Everything here is constant data or a pure function, safe from any thread.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace sandbox {

// The wire codes, each with the status it maps to when no kind says otherwise (a client
// deriving a missing httpStatus). The enum, error_code_name() and error_code_status() are
// generated from this X-macro.
#define SANDBOX_ERROR_CODES(X)                        \
  X(kFileNotFound, "FILE_NOT_FOUND", 404)             \
  X(kFileExists, "FILE_EXISTS", 409)                  \
  X(kPermissionDenied, "PERMISSION_DENIED", 403)      \
  X(kIsDirectory, "IS_DIRECTORY", 400)                \
  X(kNotDirectory, "NOT_DIRECTORY", 400)              \
  X(kFileTooLarge, "FILE_TOO_LARGE", 413)             \
  X(kNoSpace, "NO_SPACE", 500)                        \
  X(kFilesystemError, "FILESYSTEM_ERROR", 500)        \
  X(kContextNotFound, "CONTEXT_NOT_FOUND", 404)       \
  X(kValidationFailed, "VALIDATION_FAILED", 400)      \
  X(kCodeExecutionError, "CODE_EXECUTION_ERROR", 500) \
  X(kInternalError, "INTERNAL_ERROR", 500)            \
  X(kNotSupported, "NOT_SUPPORTED", 403)

enum class ErrorCode {
#define SANDBOX_ERROR_CODE_ENUM(name, wire, status) name,
  SANDBOX_ERROR_CODES(SANDBOX_ERROR_CODE_ENUM)
#undef SANDBOX_ERROR_CODE_ENUM
};

// "FILE_NOT_FOUND", ...
std::string_view error_code_name(ErrorCode code);
// The HTTP status the code maps to by default (404 for kFileNotFound, ...).
int error_code_status(ErrorCode code);
// The code named `name`, or nullopt for an unknown name (whose status is 500).
[[nodiscard]] std::optional<ErrorCode> parse_error_code(std::string_view name);

// The kinds: X(kind, wire code, HTTP status, retryable, meaning). The first kind of a
// (code, status) pair is what error_kind_for() answers for it, so the order matters where two
// kinds share both: kOverloaded before kHeldByAnotherNode (both retryable); kInternal before
// kStorageFailure, so a client, which cannot tell them apart, does not retry a 500 on its own;
// kUpstreamFailed before kUnexpected (neither retryable).
#define SANDBOX_ERROR_KINDS(X)                                                                    \
  X(kBadRequest, kValidationFailed, 400, false,                                                   \
    "The request is malformed: invalid JSON, a field of the wrong type or out of range, or a "    \
    "documented limit exceeded. The message names the field.")                                    \
  X(kUnauthorized, kValidationFailed, 401, false,                                                 \
    "sandboxd runs with API keys and the Authorization header carries none of them.")             \
  X(kRouteNotFound, kValidationFailed, 404, false, "No route has this path.")                     \
  X(kMethodNotAllowed, kValidationFailed, 405, false,                                             \
    "The route exists but not for this method; the Allow header lists the methods.")              \
  X(kRequestTooLarge, kValidationFailed, 413, false,                                              \
    "The body (or the code in it) is larger than the route accepts.")                             \
  X(kUnsupportedMediaType, kValidationFailed, 415, false,                                         \
    "The route takes a JSON body and Content-Type is not application/json.")                      \
  X(kContextNotFound, kContextNotFound, 404, false,                                               \
    "No code context has this id (never created, deleted, or expired); context {contextId}.")     \
  X(kFileNotFound, kFileNotFound, 404, false, "A workspace path does not exist (ENOENT).")        \
  X(kFileExists, kFileExists, 409, false, "A workspace path already exists (EEXIST).")            \
  X(kPermissionDenied, kPermissionDenied, 403, false,                                             \
    "A workspace path escapes /workspace, or the operation is refused on it (EACCES).")           \
  X(kIsDirectory, kIsDirectory, 400, false, "A file operation named a directory (EISDIR).")       \
  X(kNotDirectory, kNotDirectory, 400, false,                                                     \
    "A directory operation named a file, or a path goes through one (ENOTDIR).")                  \
  X(kFileTooLarge, kFileTooLarge, 413, false,                                                     \
    "A workspace file would exceed the per-file limit (EFBIG); context {maxSize, actualSize}.")   \
  X(kWorkspaceFull, kNoSpace, 500, false,                                                         \
    "The workspace would exceed its total size or entry count (ENOSPC).")                         \
  X(kFilesystemError, kFilesystemError, 500, false,                                               \
    "Any other workspace failure (ENOTEMPTY, EINVAL, a failed mkdir).")                           \
  X(kFilesDisabled, kNotSupported, 403, false,                                                    \
    "The File API is disabled for this sandbox (SANDBOX_FILE_API=disabled); context {feature}.")  \
  X(kCodeExecutionError, kCodeExecutionError, 500, false,                                         \
    "Defined for SDK parity; never sent (a guest's failure is the result's `error`).")            \
  X(kCapacityReached, kNoSpace, 503, false,                                                       \
    "The server keeps at most --max-sandboxes sandboxes (or interpreter keys); it passes once "   \
    "one is deleted or expires, not by retrying soon.")                                           \
  X(kTooManyRequests, kInternalError, 429, true,                                                  \
    "A per-client admission bound (requests waiting for one sandbox, executions per API key). "   \
    "Retry-After: 1; context {limit, retryAfterSeconds}.")                                        \
  X(kOverloaded, kInternalError, 503, true,                                                       \
    "A server-wide admission bound (open connections, queued requests). Retry-After: 1; "         \
    "context {limit, retryAfterSeconds}.")                                                        \
  X(kHeldByAnotherNode, kInternalError, 503, true,                                                \
    "Another node holds the lease on this sandbox or interpreter key; retry later or elsewhere.") \
  X(kWorkerLost, kInternalError, 503, true,                                                       \
    "The worker process running the code died (a crash, or its sandbox killed it); the server "   \
    "replaced it. The code may have run in part; nothing of it was stored, and the context "      \
    "restores from its last snapshot on the next execute.")                                       \
  X(kInternal, kInternalError, 500, false,                                                        \
    "A server or peer broke the protocol: an invalid runtime answer, a stored row that is "       \
    "not a valid row, a repeated resync.")                                                        \
  X(kStorageFailure, kInternalError, 500, true,                                                   \
    "The storage backend failed (I/O, a lock, a lost lease, a fenced-off write); the "            \
    "operation changed nothing.")                                                                 \
  X(kUpstreamFailed, kInternalError, 502, false,                                                  \
    "A binding (runtime) could not be reached or failed mid-call; it may have run the code.")     \
  X(kUnexpected, kInternalError, 502, false,                                                      \
    "Any other exception (\"Engine execution failed\"); a bug to report.")                        \
  X(kUnreachable, kInternalError, 0, false,                                                       \
    "Client only: the server was not reached or did not answer with the protocol (status 0).")

enum class ErrorKind {
#define SANDBOX_ERROR_KIND_ENUM(kind, code, status, retryable, meaning) kind,
  SANDBOX_ERROR_KINDS(SANDBOX_ERROR_KIND_ENUM)
#undef SANDBOX_ERROR_KIND_ENUM
};

struct ErrorKindInfo {
  ErrorKind kind;
  std::string_view name;  // "kBadRequest", ...
  ErrorCode code;
  int http_status;  // 0 for kUnreachable: no HTTP answer
  bool retryable;
  std::string_view meaning;
};

// Every kind, in table order.
std::span<const ErrorKindInfo> error_kinds();
const ErrorKindInfo& error_kind_info(ErrorKind kind);
inline ErrorCode error_kind_code(ErrorKind kind) { return error_kind_info(kind).code; }
inline int error_kind_status(ErrorKind kind) { return error_kind_info(kind).http_status; }
inline bool error_kind_retryable(ErrorKind kind) { return error_kind_info(kind).retryable; }

// The kind a received (code, status) pair stands for: the first kind with both; else the first
// kind with the code and its default status (error_code_status()); else kInternal.
[[nodiscard]] ErrorKind error_kind_for(ErrorCode code, int http_status);

// An exception from below the protocol layer that names its kind, so every boundary answers it
// the same way (error_response_for() in include/sandbox/protocol.h): StorageError and its
// lease errors, SnapshotError, WasmError, WorkerLostError, BindingError
// (docs/errors.md#exceptions-at-the-boundaries). An exception that reaches a boundary and is
// neither this, an ApiError nor a WorkspaceError is kUnexpected: a bug.
class ClassifiedError {
 public:
  virtual ErrorKind kind() const noexcept = 0;
  // The ErrorResponse message.
  virtual std::string wire_message() const = 0;

 protected:
  ~ClassifiedError() = default;
};

// docs/errors.md, as generated from the table (Markdown).
std::string errors_markdown();

}  // namespace sandbox

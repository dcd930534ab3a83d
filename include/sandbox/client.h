// The C++ client: the caller side of the sandbox-workers protocol (docs/sandbox-api.md).
//
// Two entry points, as upstream's @sandbox-workers/core:
//
//   // Stateless, straight to a runtime server (sandbox-runtime, or sandboxd's /runtimes/LUA):
//   auto result = sandbox::run_code("http://127.0.0.1:8080", "1 + 2 * 3");
//   result.outcome.results[0].text  // "7"
//
//   // A sandbox on a sandboxd server: /workspace, env vars, durable code contexts.
//   auto sb = sandbox::get_sandbox("http://127.0.0.1:8787", "my-sandbox");
//   sb.write_file("/workspace/data.txt", "hello");
//   auto r = sb.run_code("x = (x or 0) + 1; return x", {.binding = "LUA"});  // default context
//   auto ctx = sb.create_code_context({.binding = "PYTHON", .cwd = "/workspace"});
//   sb.run_code("import os; os.listdir('.')", {.context = ctx.id});
//
// Upstream's `sandbox.interpreter.*` methods (createCodeContext, listCodeContexts,
// deleteCodeContext, runCode) are SandboxClient's create_code_context, list_code_contexts,
// delete_code_context and run_code; the rest keep their names in snake_case.
//
// Guest errors never throw: they come back in result.outcome.error. Request and transport
// failures throw SandboxError (or a subclass chosen by the ErrorResponse's code); a server that
// cannot be reached throws SandboxError with code INTERNAL_ERROR and http_status 0.
//
// Thread-safety: free functions may be called from any thread; each call opens its own
// connection. A SandboxClient keeps one connection and is used by one thread at a time.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <sandbox/http.h>
#include <sandbox/protocol.h>

namespace sandbox {

// A failed request, built from the server's ErrorResponse.
class SandboxError : public std::runtime_error {
 public:
  explicit SandboxError(ErrorResponse response)
      : std::runtime_error(response.message), response_(std::move(response)) {}
  const ErrorResponse& response() const { return response_; }
  ErrorCode code() const { return response_.code; }
  int http_status() const { return response_.http_status; }
  // The kind the (code, status) pair stands for in the table of include/sandbox/errors.h
  // (kUnreachable for a server not reached), and whether sending the request again may pass.
  ErrorKind kind() const { return error_kind_of(response_); }
  bool retryable() const { return error_kind_retryable(kind()); }

 private:
  ErrorResponse response_;
};

class FileNotFoundError : public SandboxError {
  using SandboxError::SandboxError;
};
class FileExistsError : public SandboxError {
  using SandboxError::SandboxError;
};
class FileTooLargeError : public SandboxError {
  using SandboxError::SandboxError;
};
class PermissionDeniedError : public SandboxError {
  using SandboxError::SandboxError;
};
// NO_SPACE, IS_DIRECTORY, NOT_DIRECTORY, FILESYSTEM_ERROR.
class FileSystemError : public SandboxError {
  using SandboxError::SandboxError;
};
class ContextNotFoundError : public SandboxError {
  using SandboxError::SandboxError;
};
class ValidationFailedError : public SandboxError {
  using SandboxError::SandboxError;
};
class CodeExecutionError : public SandboxError {
  using SandboxError::SandboxError;
};
class NotSupportedError : public SandboxError {
  using SandboxError::SandboxError;
};

// Throws the SandboxError subclass for `response.code` (docs/sandbox-api.md#client-errors).
[[noreturn]] void throw_sandbox_error(ErrorResponse response);

// Streaming output (docs/protocol.md#streaming-output): a run_code whose options carry
// on_stdout_text or on_stderr_text sends `Accept: text/event-stream` and reads the answer as
// Server-Sent Events, calling them with each piece of text as the guest writes it (in arrival
// order, on the calling thread, before run_code returns); the result is the one the
// non-streaming call would have returned. The stream comes from the server, so the reader is
// bounded: a line over kMaxEventStreamLineBytes or an event over kMaxEventStreamEventBytes ends
// the call with a transport error (SandboxError INTERNAL_ERROR, http_status 0).
inline constexpr std::size_t kMaxEventStreamLineBytes = std::size_t{48} << 20;
inline constexpr std::size_t kMaxEventStreamEventBytes = std::size_t{48} << 20;

struct RunOptions {
  // Env vars sent with the call; a nullopt value is dropped (stateless) or unsets the key
  // (sandbox executions).
  std::map<std::string, std::optional<std::string>> env_vars;
  std::chrono::milliseconds timeout{120'000};
  // Sent as `authorization: Bearer <api_key>` when not empty (a sandboxd started with keys).
  std::string api_key;
  // Streaming (above): each piece of stdout / stderr text as it is written. May be empty.
  std::function<void(std::string_view)> on_stdout_text;
  std::function<void(std::string_view)> on_stderr_text;
};

// What GET /interpreter reports.
struct InterpreterInfo {
  std::string language;
  std::string engine;
  bool contexts = false;
  int protocol = kInterpreterProtocolVersion;
};

// Stateless execution on a runtime server: POST {runtime_url}/execute {code, envVars?}.
ExecutionResult run_code(const std::string& runtime_url, const std::string& code,
                         const RunOptions& options = {});

// Stateless execution on a sandboxd: POST {server_url}/execute/{language_id} {code, envVars?}
// (docs/sandbox-api.md#routes), run by the binding whose GET /languages `id` is `language_id`;
// options and result as run_code's. Throws ValidationFailedError before any request when
// `language_id` is not 1-64 characters of A-Z a-z 0-9 . _ - (it becomes a path segment).
ExecutionResult run_code_on_server(const std::string& server_url, const std::string& language_id,
                                   const std::string& code, const RunOptions& options = {});

// GET {runtime_url}/interpreter, checked as a caller does (docs/sandbox-api.md#binding-probe):
// throws ValidationFailedError when the answer is not a sandbox-workers runtime or speaks another
// protocol version.
InterpreterInfo probe_runtime(const std::string& runtime_url, const std::string& api_key = {});

// ---- Sandboxes on a sandboxd server -------------------------------------------------------------

// docs/sandbox-api.md#identifiers: 1-63 characters of A-Z a-z 0-9 . _ -, not starting or ending
// with '-', not a reserved name (www, api, admin, root, system, cloudflare, workers; any case).
// Throws std::invalid_argument with the documented message ('Invalid sandbox id "<id>": ...').
void validate_sandbox_id(std::string_view id);

struct ClientOptions {
  // Sent as `authorization: Bearer <api_key>` when not empty.
  std::string api_key;
  std::chrono::milliseconds timeout{120'000};
  // Lowercase the id before validating it (upstream's normalizeId).
  bool normalize_id = false;
};

// A code context as POST/GET /contexts report it. Timestamps are ISO-8601 strings.
struct CodeContext {
  std::string id;
  std::string binding;
  std::string language;
  std::string cwd;
  std::string created_at;
  std::string last_used;
};

struct CreateContextOptions {
  std::string binding;             // required: a binding name such as "PYTHON"
  std::optional<std::string> cwd;  // default /workspace
  std::map<std::string, std::string> env_vars;
};

// The `context` of a result that ran in a code context.
struct ExecutionContextInfo {
  std::string id;
  std::string cwd;
  std::uint64_t executions = 0;
  std::optional<double> snapshot_ms;
  std::optional<std::int64_t> expires_at;  // epoch ms
};

// An ExecutionResult from a sandbox: `execution_count` and `context` are set when it ran in a
// code context (absent after a stateless fallback).
struct SandboxExecutionResult : ExecutionResult {
  std::optional<std::uint64_t> execution_count;
  std::optional<ExecutionContextInfo> context;
};

struct SandboxRunOptions {
  std::optional<std::string> context;  // a context id; takes precedence over `binding`
  std::optional<std::string> binding;  // use (or create) this binding's default context
  // nullopt unsets a sandbox or context variable for this call.
  std::map<std::string, std::optional<std::string>> env_vars;
  std::chrono::milliseconds timeout{120'000};
  // Called after the response arrives (no streaming, as upstream): each stdout line, then each
  // stderr line, then each result entry, then the error if any.
  std::function<void(const std::string&)> on_stdout;
  std::function<void(const std::string&)> on_stderr;
  std::function<void(const ResultEntry&)> on_result;
  std::function<void(const ExecutionError&)> on_error;
  // Streaming (see RunOptions): each piece of text while the code runs, before the callbacks
  // above (which still see the whole output, line by line, once the answer is in).
  std::function<void(std::string_view)> on_stdout_text;
  std::function<void(std::string_view)> on_stderr_text;
};

// A file operation's answer: {success, path, newPath?, recursive?, timestamp}.
struct FileOpResult {
  bool success = false;
  std::string path;
  std::optional<std::string> new_path;
  std::string timestamp;
};

struct ReadFileResult {
  std::string path;
  std::string content;   // text, or base64 when encoding is "base64"
  std::string encoding;  // "utf-8" or "base64"
  bool is_binary = false;
  std::string mime_type;
  std::uint64_t size = 0;
  std::string timestamp;
};

struct FileInfo {
  std::string name;
  std::string absolute_path;
  std::string relative_path;
  std::string type;  // "file" or "directory"
  std::uint64_t size = 0;
  std::string modified_at;  // ISO
  std::string mode;         // "drwxr-xr-x" / "-rw-r--r--"
  bool is_directory() const { return type == "directory"; }
};

struct ListFilesOptions {
  bool recursive = false;
  bool include_hidden = false;
};

struct ListFilesResult {
  std::string path;
  std::vector<FileInfo> files;
  std::string timestamp;
};

// SnapshotInfo of a context (docs/protocol.md#snapshot-info).
struct ContextSnapshotInfo {
  std::string build;
  std::uint64_t pages = 0;
  std::uint64_t bytes = 0;
  std::uint64_t stored_bytes = 0;
  std::int64_t taken_at = 0;  // epoch ms
  bool stale = false;
  // The bytes its chunk rows take in the store; nullopt when the runtime did not say.
  std::optional<std::uint64_t> encoded_bytes = std::nullopt;
};

struct SandboxContextInfo : CodeContext {
  std::string engine;
  std::uint64_t executions = 0;
  std::optional<ContextSnapshotInfo> snapshot;
};

// GET /sandboxes/{id} (docs/sandbox-api.md#sandbox-info).
struct SandboxInfo {
  std::string id;
  std::string created_at;
  std::string last_used;
  std::map<std::string, std::string> env_vars;
  std::vector<SandboxContextInfo> contexts;  // oldest first
  std::uint64_t workspace_entries = 0;       // files + directories
  std::uint64_t workspace_bytes = 0;
  bool file_api = true;
  std::optional<std::int64_t> expires_at;  // epoch ms; nullopt when idle expiry is off
};

// One entry of GET /languages.
struct LanguageInfo {
  std::string id;       // what POST /execute/{id} takes (the binding name, lowercased)
  std::string binding;  // e.g. "PYTHON"
  std::string language;
  std::string engine;
  bool contexts = false;
  bool remote = false;
  bool available = true;               // false when a remote binding did not answer its probe
  std::optional<EngineLimits> limits;  // built-in engines only
};

// ---- A client over a transport of the caller's ----------------------------------------------

// One request as the client sends it to sandboxd.
struct ClientRequest {
  std::string method;
  std::string path;  // e.g. /sandboxes/my-sandbox/files
  std::string body;  // JSON; empty when the request has none
  // content-type: application/json on a POST; authorization with an api_key; x-sandbox-id.
  std::vector<std::pair<std::string, std::string>> headers;
};

// Delivers one request to sandboxd and returns its answer as the route gave it (an
// ErrorResponse body when the route refused), for a caller that reaches sandboxd another way
// than a URL: in process (sandboxd's own /mcp), through a proxy of its own, a test. The client
// decodes the answer as it decodes one from the network. A transport that cannot deliver
// throws: a SandboxError passes as it is, any other exception becomes SandboxError
// INTERNAL_ERROR with http_status 0 and the exception's message.
//
// Over a transport nothing is streamed: run_code's on_stdout_text and on_stderr_text are called
// once the answer is in, with each line of the output (and its newline). Timeouts are the
// transport's own; ClientOptions::timeout and RunOptions::timeout are not used.
using ClientTransport = std::function<HttpResponse(const ClientRequest&)>;

class SandboxClient {
 public:
  SandboxClient(SandboxClient&&) noexcept;
  SandboxClient& operator=(SandboxClient&&) noexcept;
  ~SandboxClient();

  const std::string& id() const;

  // Code contexts (upstream's sandbox.interpreter).
  CodeContext create_code_context(const CreateContextOptions& options);
  std::vector<CodeContext> list_code_contexts();
  // Throws ContextNotFoundError for an unknown id.
  void delete_code_context(const std::string& context_id);
  // POST /sandboxes/{id}/execute. Without `context`, `binding` is required (the server answers
  // 400 otherwise); a binding without contexts falls back to stateless execution.
  SandboxExecutionResult run_code(const std::string& code, const SandboxRunOptions& options = {});

  // POST /env: a nullopt value removes the variable.
  void set_env_vars(const std::map<std::string, std::optional<std::string>>& env_vars);

  // The files API. Paths are absolute under /workspace or relative to it.
  FileOpResult write_file(const std::string& path, const std::string& content,
                          const std::string& encoding = "utf-8");
  FileOpResult write_file_bytes(const std::string& path, std::span<const std::uint8_t> bytes);
  ReadFileResult read_file(const std::string& path, const std::string& encoding = "utf-8");
  // The file's raw bytes (read as base64 and decoded).
  std::vector<std::uint8_t> read_file_bytes(const std::string& path);
  FileOpResult mkdir(const std::string& path, bool recursive = false);
  FileOpResult delete_file(const std::string& path, bool recursive = false, bool force = false);
  FileOpResult rename_file(const std::string& old_path, const std::string& new_path);
  FileOpResult move_file(const std::string& source_path, const std::string& destination_path);
  ListFilesResult list_files(const std::string& path = "/workspace",
                             const ListFilesOptions& options = {});
  bool exists(const std::string& path);

  SandboxInfo get_info();
  // DELETE /sandboxes/{id}: everything of the sandbox is wiped.
  void destroy();

 private:
  friend SandboxClient get_sandbox(const std::string&, const std::string&, const ClientOptions&);
  friend SandboxClient get_sandbox(ClientTransport, const std::string&, const ClientOptions&);
  struct Impl;
  explicit SandboxClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A client for sandbox `id` on the sandboxd at `server_url` (http://HOST:PORT). Validates the id
// (std::invalid_argument) and the URL (SandboxError); makes no request yet.
SandboxClient get_sandbox(const std::string& server_url, const std::string& id,
                          const ClientOptions& options = {});

// GET {server_url}/languages.
std::vector<LanguageInfo> list_languages(const std::string& server_url,
                                         const ClientOptions& options = {});

// get_sandbox, list_languages and run_code_on_server over a ClientTransport (above): the same
// checks, requests and errors as over a URL.
SandboxClient get_sandbox(ClientTransport transport, const std::string& id,
                          const ClientOptions& options = {});
std::vector<LanguageInfo> list_languages(const ClientTransport& transport,
                                         const ClientOptions& options = {});
ExecutionResult run_code_on_server(const ClientTransport& transport, const std::string& language_id,
                                   const std::string& code, const RunOptions& options = {});

}  // namespace sandbox

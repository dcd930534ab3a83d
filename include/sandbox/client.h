// The C++ client: the caller side of the sandbox-workers protocol (`upstream-protocol.md` §10).
//
//   auto result = sandbox::run_code("http://127.0.0.1:8080", "1 + 2 * 3");
//   result.outcome.results[0].text  // "7"
//
// Guest errors never throw: they come back in result.outcome.error. Request and transport
// failures throw SandboxError (or a subclass chosen by the ErrorResponse's code); a server that
// cannot be reached throws SandboxError with code INTERNAL_ERROR and http_status 0.
//
// Thread-safety: free functions may be called from any thread; each call opens its own
// connection.
#pragma once

#include <sandbox/protocol.h>

#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

namespace sandbox {

// A failed request, built from the server's ErrorResponse.
class SandboxError : public std::runtime_error {
 public:
  explicit SandboxError(ErrorResponse response)
      : std::runtime_error(response.message), response_(std::move(response)) {}
  const ErrorResponse& response() const { return response_; }
  ErrorCode code() const { return response_.code; }
  int http_status() const { return response_.http_status; }

 private:
  ErrorResponse response_;
};

class FileNotFoundError : public SandboxError { using SandboxError::SandboxError; };
class FileExistsError : public SandboxError { using SandboxError::SandboxError; };
class FileTooLargeError : public SandboxError { using SandboxError::SandboxError; };
class PermissionDeniedError : public SandboxError { using SandboxError::SandboxError; };
// NO_SPACE, IS_DIRECTORY, NOT_DIRECTORY, FILESYSTEM_ERROR.
class FileSystemError : public SandboxError { using SandboxError::SandboxError; };
class ContextNotFoundError : public SandboxError { using SandboxError::SandboxError; };
class ValidationFailedError : public SandboxError { using SandboxError::SandboxError; };
class CodeExecutionError : public SandboxError { using SandboxError::SandboxError; };
class NotSupportedError : public SandboxError { using SandboxError::SandboxError; };

// Throws the SandboxError subclass for `response.code` (§10.4).
[[noreturn]] void throw_sandbox_error(ErrorResponse response);

struct RunOptions {
  // Env vars sent with the call; a nullopt value is dropped (stateless) or unsets the key
  // (sandbox executions).
  std::map<std::string, std::optional<std::string>> env_vars;
  std::chrono::milliseconds timeout{120'000};
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

// GET {runtime_url}/interpreter, checked as a caller does (§8.3): throws ValidationFailedError
// when the answer is not a sandbox-workers runtime or speaks another protocol version.
InterpreterInfo probe_runtime(const std::string& runtime_url);

}  // namespace sandbox

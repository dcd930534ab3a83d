#include <algorithm>
#include <cctype>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <sandbox/client.h>
#include <sandbox/clock.h>

#include "base/utf8.h"
#include "client/client_support.h"
#include "client/execute_stream_reader.h"
#include "client/http_client.h"
#include "client/sender.h"
#include "protocol/sandbox_responses.h"

namespace sandbox {
namespace client_detail {

ErrorResponse transport_error(const std::string& message) {
  ErrorResponse e;
  e.code = error_kind_code(ErrorKind::kUnreachable);
  e.message = message;
  e.http_status = error_kind_status(ErrorKind::kUnreachable);
  e.timestamp = iso8601_ms(SystemClock().now_ms());
  return e;
}

}  // namespace client_detail

using namespace client_detail;

void throw_sandbox_error(ErrorResponse r) {
  switch (r.code) {
    case ErrorCode::kFileNotFound:
      throw FileNotFoundError(std::move(r));
    case ErrorCode::kFileExists:
      throw FileExistsError(std::move(r));
    case ErrorCode::kFileTooLarge:
      throw FileTooLargeError(std::move(r));
    case ErrorCode::kPermissionDenied:
      throw PermissionDeniedError(std::move(r));
    case ErrorCode::kNoSpace:
    case ErrorCode::kIsDirectory:
    case ErrorCode::kNotDirectory:
    case ErrorCode::kFilesystemError:
      throw FileSystemError(std::move(r));
    case ErrorCode::kContextNotFound:
      throw ContextNotFoundError(std::move(r));
    case ErrorCode::kValidationFailed:
      throw ValidationFailedError(std::move(r));
    case ErrorCode::kCodeExecutionError:
      throw CodeExecutionError(std::move(r));
    case ErrorCode::kNotSupported:
      throw NotSupportedError(std::move(r));
    case ErrorCode::kInternalError:
      break;
  }
  throw SandboxError(std::move(r));
}

namespace {

// How much of an answer that is not the protocol (a proxy's error page, say) an error quotes.
constexpr std::size_t kQuotedBodyBytes = 200;

// The start of `response`'s body, as valid UTF-8.
std::string quoted_body(const HttpResponse& response) {
  return sanitize_utf8(utf8_prefix(response.body, kQuotedBodyBytes));
}

}  // namespace

boost::json::value client_detail::checked_json(const HttpResponse& response) {
  if (response.status == 204) return boost::json::object{};
  boost::system::error_code ec;
  boost::json::value body = boost::json::parse(response.body, ec);
  if (ec) {
    throw_sandbox_error(transport_error("HTTP " + std::to_string(response.status) +
                                        ": response is not JSON: " + quoted_body(response)));
  }
  if (response.status < 200 || response.status >= 300) {
    auto e = error_response_from_json(body);
    if (!e) {
      throw_sandbox_error(transport_error("HTTP " + std::to_string(response.status) + ": " +
                                          quoted_body(response)));
    }
    if (e->timestamp.empty()) e->timestamp = iso8601_ms(SystemClock().now_ms());
    throw_sandbox_error(std::move(*e));
  }
  return body;
}

HttpResponse client_detail::send_execute_or_throw(
    HttpClient& client, const std::string& path, const std::string& body, const Headers& headers,
    const std::function<void(std::string_view)>& on_stdout_text,
    const std::function<void(std::string_view)>& on_stderr_text) {
  if (!on_stdout_text && !on_stderr_text) return send_or_throw(client, "POST", path, body, headers);
  const OutputObserver observer = [&](OutputStream stream, std::string_view text) {
    const auto& callback = stream == OutputStream::kStdout ? on_stdout_text : on_stderr_text;
    if (callback) callback(text);
  };
  try {
    return request_execute_stream(client, path, body, headers, observer);
  } catch (const TransportError& e) {
    throw_sandbox_error(transport_error(e.what()));
  } catch (const std::invalid_argument& e) {
    throw_sandbox_error(transport_error(e.what()));
  }
}

Headers client_detail::auth_headers(const std::string& api_key) {
  if (api_key.empty()) return {};
  return {{"authorization", "Bearer " + api_key}};
}

HttpResponse client_detail::send_or_throw(HttpClient& client, const std::string& method,
                                          const std::string& path, const std::string& body,
                                          const Headers& headers) {
  try {
    if (method == "POST") return client.post_json(path, body, headers);
    return client.request(method, path, body, headers);
  } catch (const TransportError& e) {
    throw_sandbox_error(transport_error(e.what()));
  } catch (const std::invalid_argument& e) {
    throw_sandbox_error(transport_error(e.what()));
  }
}

namespace {

// POST {path} {code, envVars?}: the stateless execute of a runtime and of sandboxd.
ExecutionResult execute_stateless(Sender& sender, const std::string& path, const std::string& code,
                                  const RunOptions& options) {
  boost::json::object body{{"code", code}};
  boost::json::object env;
  for (const auto& [k, v] : options.env_vars) {
    if (v) env[k] = *v;
  }
  if (!env.empty()) body["envVars"] = std::move(env);
  const auto response =
      sender.send_execute(path, boost::json::serialize(body), auth_headers(options.api_key),
                          options.on_stdout_text, options.on_stderr_text);
  const auto json = checked_json(response);
  if (!json.is_object()) throw_sandbox_error(transport_error("Invalid sandbox response"));
  ExecutionResult result = execution_result_from_json(json.get_object());
  if (!sender.streams()) deliver_unstreamed(result, options.on_stdout_text, options.on_stderr_text);
  return result;
}

bool valid_language_id(std::string_view id) {
  constexpr std::size_t kMaxLanguageIdChars = 64;
  if (id.empty() || id.size() > kMaxLanguageIdChars) return false;
  return std::all_of(id.begin(), id.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '_' || c == '-';
  });
}

}  // namespace

ExecutionResult run_code(const std::string& runtime_url, const std::string& code,
                         const RunOptions& options) {
  Sender sender = Sender::http(runtime_url, options.timeout);
  return execute_stateless(sender, "/execute", code, options);
}

namespace {

// The path of POST /execute/{language_id}; ValidationFailedError for an id that is not one.
std::string stateless_execute_path(const std::string& language_id) {
  if (!valid_language_id(language_id)) {
    throw_sandbox_error(
        ApiError(ErrorKind::kBadRequest,
                 "Invalid language id '" + language_id + "' (1-64 characters of A-Z a-z 0-9 . _ -)")
            .to_response(SystemClock().now_ms()));
  }
  return "/execute/" + language_id;
}

}  // namespace

ExecutionResult run_code_on_server(const std::string& server_url, const std::string& language_id,
                                   const std::string& code, const RunOptions& options) {
  const std::string path = stateless_execute_path(language_id);
  Sender sender = Sender::http(server_url, options.timeout);
  return execute_stateless(sender, path, code, options);
}

ExecutionResult run_code_on_server(const ClientTransport& transport, const std::string& language_id,
                                   const std::string& code, const RunOptions& options) {
  const std::string path = stateless_execute_path(language_id);
  Sender sender = Sender::over(transport);
  return execute_stateless(sender, path, code, options);
}

namespace {

// [[noreturn]] (a lambda cannot say so) lets the checks below see that a failed test leaves.
[[noreturn]] void throw_not_runtime(const std::string& runtime_url) {
  ErrorResponse e =
      ApiError(ErrorKind::kBadRequest, "'" + runtime_url + "' is not a sandbox-workers runtime")
          .to_response(SystemClock().now_ms());
  throw_sandbox_error(std::move(e));
}

}  // namespace

InterpreterInfo probe_runtime(const std::string& runtime_url, const std::string& api_key) {
  Sender sender = Sender::http(runtime_url, std::chrono::seconds(30));
  const auto response = sender.send("GET", "/interpreter", "", auth_headers(api_key));
  if (response.status < 200 || response.status >= 300) {
    // An ErrorResponse (401 from a sandboxd with keys, ...) is thrown as what it is.
    boost::system::error_code parse_ec;
    const auto body = boost::json::parse(response.body, parse_ec);
    if (!parse_ec && error_response_from_json(body)) checked_json(response);
  }
  boost::system::error_code ec;
  const auto v = boost::json::parse(response.body, ec);
  if (ec || !v.is_object()) throw_not_runtime(runtime_url);
  const auto& o = v.get_object();
  const std::optional<InterpreterInfo> decoded = decode_interpreter_info(o);
  if (!decoded) throw_not_runtime(runtime_url);
  const InterpreterInfo& info = *decoded;
  if (info.protocol != kInterpreterProtocolVersion) {
    throw_sandbox_error(ApiError(ErrorKind::kBadRequest,
                                 "'" + runtime_url + "' speaks interpreter protocol " +
                                     std::to_string(info.protocol) + "; this caller supports " +
                                     std::to_string(kInterpreterProtocolVersion))
                            .to_response(SystemClock().now_ms()));
  }
  return info;
}

}  // namespace sandbox

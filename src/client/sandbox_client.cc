// SandboxClient: the sandbox API of a sandboxd server (docs/sandbox-api.md#routes,
// docs/sandbox-api.md#client-errors).
#include <algorithm>
#include <array>
#include <cctype>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <sandbox/client.h>
#include <sandbox/clock.h>

#include "base/base64.h"
#include "base/url_codec.h"
#include "client/client_support.h"
#include "client/sender.h"
#include "protocol/sandbox_responses.h"

namespace sandbox {

using namespace client_detail;

namespace {

// The decoders of protocol/sandbox_responses.h refuse an answer with ApiError; the client
// reports it as a transport error with the same message.
template <typename F>
auto decoded(F&& decode) -> decltype(decode()) {
  try {
    return decode();
  } catch (const ApiError& e) {
    throw_sandbox_error(transport_error(e.what()));
  }
}

std::uint64_t unsigned_of(const boost::json::object& o, std::string_view key) {
  return decoded([&] { return response_count(o, key); });
}

const boost::json::object& as_object(const boost::json::value& v) {
  if (!v.is_object()) throw_sandbox_error(transport_error("Invalid sandbox response"));
  return v.get_object();
}

}  // namespace

void validate_sandbox_id(std::string_view id) {
  const std::string prefix = "Invalid sandbox id \"" + std::string(id) + "\": ";
  const bool charset_ok =
      !id.empty() && id.size() <= 63 && std::all_of(id.begin(), id.end(), [](char ch) {
        const auto c = static_cast<unsigned char>(ch);
        return (c < 0x80 && std::isalnum(c)) || c == '.' || c == '_' || c == '-';
      });
  if (!charset_ok) throw std::invalid_argument(prefix + "must match ^[A-Za-z0-9._-]{1,63}$");
  if (id.front() == '-' || id.back() == '-') {
    throw std::invalid_argument(prefix + "cannot start or end with a hyphen");
  }
  std::string lower(id);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static constexpr std::array<std::string_view, 7> kReserved = {
      "www", "api", "admin", "root", "system", "cloudflare", "workers"};
  for (const auto r : kReserved) {
    if (lower == r)
      throw std::invalid_argument(prefix + "'" + std::string(id) + "' is a reserved name");
  }
}

struct SandboxClient::Impl {
  Impl(std::string sandbox_id, ClientOptions client_options, Sender request_sender)
      : id(std::move(sandbox_id)),
        base("/sandboxes/" + id),
        options(std::move(client_options)),
        sender(std::move(request_sender)) {}

  std::string id;
  std::string base;  // /sandboxes/{id}
  ClientOptions options;
  Sender sender;

  Headers headers() const {
    Headers h = auth_headers(options.api_key);
    h.emplace_back(std::string(kSandboxIdHeader), id);
    return h;
  }

  boost::json::value call(const std::string& method, const std::string& path,
                          const std::string& body = {}) {
    return checked_json(sender.send(method, base + path, body, headers()));
  }

  boost::json::object files(const boost::json::object& request) {
    return as_object(call("POST", "/files", boost::json::serialize(request)));
  }
};

SandboxClient::SandboxClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SandboxClient::SandboxClient(SandboxClient&&) noexcept = default;
SandboxClient& SandboxClient::operator=(SandboxClient&&) noexcept = default;
SandboxClient::~SandboxClient() = default;

const std::string& SandboxClient::id() const { return impl_->id; }

namespace {

// The id a client uses: lowercased first with normalize_id, then validated
// (std::invalid_argument).
std::string client_sandbox_id(const std::string& id, const ClientOptions& options) {
  std::string normalized = id;
  if (options.normalize_id) {
    std::transform(normalized.begin(), normalized.end(), normalized.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  }
  validate_sandbox_id(normalized);
  return normalized;
}

std::vector<LanguageInfo> languages_over(Sender& sender, const ClientOptions& options) {
  const auto answer =
      checked_json(sender.send("GET", "/languages", "", auth_headers(options.api_key)));
  const auto& o = as_object(answer);
  return decoded([&] { return decode_language_list(o); });
}

}  // namespace

SandboxClient get_sandbox(const std::string& server_url, const std::string& id,
                          const ClientOptions& options) {
  std::string sandbox_id = client_sandbox_id(id, options);
  return SandboxClient(std::make_unique<SandboxClient::Impl>(
      std::move(sandbox_id), options, Sender::http(server_url, options.timeout)));
}

SandboxClient get_sandbox(ClientTransport transport, const std::string& id,
                          const ClientOptions& options) {
  std::string sandbox_id = client_sandbox_id(id, options);
  return SandboxClient(std::make_unique<SandboxClient::Impl>(std::move(sandbox_id), options,
                                                             Sender::over(std::move(transport))));
}

CodeContext SandboxClient::create_code_context(const CreateContextOptions& options) {
  boost::json::object body{{"binding", options.binding}};
  if (options.cwd) body["cwd"] = *options.cwd;
  if (!options.env_vars.empty()) {
    boost::json::object env;
    for (const auto& [k, v] : options.env_vars) env[k] = v;
    body["envVars"] = std::move(env);
  }
  return decode_code_context(
      as_object(impl_->call("POST", "/contexts", boost::json::serialize(body))));
}

std::vector<CodeContext> SandboxClient::list_code_contexts() {
  const boost::json::value answer = impl_->call("GET", "/contexts");
  return decode_code_context_list(as_object(answer));
}

void SandboxClient::delete_code_context(const std::string& context_id) {
  impl_->call("DELETE", "/contexts/" + url_encode(context_id));
}

SandboxExecutionResult SandboxClient::run_code(const std::string& code,
                                               const SandboxRunOptions& options) {
  boost::json::object body{{"code", code}};
  if (options.context) body["contextId"] = *options.context;
  if (options.binding) body["binding"] = *options.binding;
  if (!options.env_vars.empty()) {
    boost::json::object env;
    for (const auto& [k, v] : options.env_vars) {
      if (v) {
        env[k] = *v;
      } else {
        env[k] = nullptr;
      }
    }
    body["envVars"] = std::move(env);
  }
  impl_->sender.set_timeout(options.timeout);
  boost::json::value answer;
  try {
    answer = checked_json(impl_->sender.send_execute(
        impl_->base + "/execute", boost::json::serialize(body), impl_->headers(),
        options.on_stdout_text, options.on_stderr_text));
  } catch (...) {
    impl_->sender.set_timeout(impl_->options.timeout);
    throw;
  }
  impl_->sender.set_timeout(impl_->options.timeout);
  const auto& o = as_object(answer);
  SandboxExecutionResult result;
  try {
    static_cast<ExecutionResult&>(result) = execution_result_from_json(o);
  } catch (const ApiError& e) {
    throw_sandbox_error(e.to_response(SystemClock().now_ms()));
  }
  if (const auto* n = o.if_contains("executionCount"); n && n->is_number()) {
    result.execution_count = unsigned_of(o, "executionCount");
  }
  result.context = decoded([&] { return decode_execution_context_info(o); });
  if (!impl_->sender.streams()) {
    deliver_unstreamed(result, options.on_stdout_text, options.on_stderr_text);
  }
  const auto& outcome = result.outcome;
  if (options.on_stdout) {
    for (const auto& line : outcome.logs.stdout_lines) options.on_stdout(line);
  }
  if (options.on_stderr) {
    for (const auto& line : outcome.logs.stderr_lines) options.on_stderr(line);
  }
  if (options.on_result) {
    for (const auto& entry : outcome.results) options.on_result(entry);
  }
  if (options.on_error && outcome.error) options.on_error(*outcome.error);
  return result;
}

void SandboxClient::set_env_vars(
    const std::map<std::string, std::optional<std::string>>& env_vars) {
  boost::json::object env;
  for (const auto& [k, v] : env_vars) {
    if (v) {
      env[k] = *v;
    } else {
      env[k] = nullptr;
    }
  }
  impl_->call("POST", "/env", boost::json::serialize(boost::json::object{{"envVars", env}}));
}

FileOpResult SandboxClient::write_file(const std::string& path, const std::string& content,
                                       const std::string& encoding) {
  const std::string enc = encoding == "utf8" ? "utf-8" : encoding;
  return decode_file_op_result(
      impl_->files({{"op", "write"}, {"path", path}, {"content", content}, {"encoding", enc}}));
}

FileOpResult SandboxClient::write_file_bytes(const std::string& path,
                                             std::span<const std::uint8_t> bytes) {
  return write_file(path, base64_encode(bytes), "base64");
}

ReadFileResult SandboxClient::read_file(const std::string& path, const std::string& encoding) {
  const std::string enc = encoding == "utf8" ? "utf-8" : encoding;
  const auto o = impl_->files({{"op", "read"}, {"path", path}, {"encoding", enc}});
  return decoded([&] { return decode_read_file_result(o); });
}

std::vector<std::uint8_t> SandboxClient::read_file_bytes(const std::string& path) {
  const ReadFileResult r = read_file(path, "base64");
  auto bytes = base64_decode(r.content);
  if (!bytes) throw_sandbox_error(transport_error("Invalid base64 in the read response"));
  return std::move(*bytes);
}

FileOpResult SandboxClient::mkdir(const std::string& path, bool recursive) {
  return decode_file_op_result(
      impl_->files({{"op", "mkdir"}, {"path", path}, {"recursive", recursive}}));
}

FileOpResult SandboxClient::delete_file(const std::string& path, bool recursive, bool force) {
  return decode_file_op_result(
      impl_->files({{"op", "delete"}, {"path", path}, {"recursive", recursive}, {"force", force}}));
}

FileOpResult SandboxClient::rename_file(const std::string& old_path, const std::string& new_path) {
  return decode_file_op_result(
      impl_->files({{"op", "rename"}, {"path", old_path}, {"newPath", new_path}}));
}

FileOpResult SandboxClient::move_file(const std::string& source_path,
                                      const std::string& destination_path) {
  return decode_file_op_result(
      impl_->files({{"op", "move"}, {"path", source_path}, {"newPath", destination_path}}));
}

ListFilesResult SandboxClient::list_files(const std::string& path,
                                          const ListFilesOptions& options) {
  const auto o = impl_->files({{"op", "list"},
                               {"path", path},
                               {"recursive", options.recursive},
                               {"includeHidden", options.include_hidden}});
  return decoded([&] { return decode_list_files_result(o); });
}

bool SandboxClient::exists(const std::string& path) {
  const auto o = impl_->files({{"op", "exists"}, {"path", path}});
  return decode_exists_result(o);
}

SandboxInfo SandboxClient::get_info() {
  const boost::json::value answer = impl_->call("GET", "");
  const auto& o = as_object(answer);
  return decoded([&] { return decode_sandbox_info(o); });
}

void SandboxClient::destroy() { impl_->call("DELETE", ""); }

std::vector<LanguageInfo> list_languages(const std::string& server_url,
                                         const ClientOptions& options) {
  Sender sender = Sender::http(server_url, options.timeout);
  return languages_over(sender, options);
}

std::vector<LanguageInfo> list_languages(const ClientTransport& transport,
                                         const ClientOptions& options) {
  Sender sender = Sender::over(transport);
  return languages_over(sender, options);
}

}  // namespace sandbox

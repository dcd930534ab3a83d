#include "client/sender.h"

#include <exception>
#include <stdexcept>
#include <utility>

namespace sandbox::client_detail {

Sender Sender::http(const std::string& base_url, std::chrono::milliseconds timeout) {
  Sender s;
  try {
    s.http_ = std::make_unique<HttpClient>(base_url, timeout);
  } catch (const std::invalid_argument& e) {
    throw_sandbox_error(transport_error(e.what()));
  }
  return s;
}

Sender Sender::over(ClientTransport transport) {
  if (!transport) throw std::invalid_argument("a client transport must be callable");
  Sender s;
  s.transport_ = std::move(transport);
  return s;
}

Sender::Sender(Sender&&) noexcept = default;
Sender& Sender::operator=(Sender&&) noexcept = default;
Sender::~Sender() = default;

HttpResponse Sender::send(const std::string& method, const std::string& path,
                          const std::string& body, const Headers& headers) {
  if (http_) return send_or_throw(*http_, method, path, body, headers);
  ClientRequest request{method, path, body, headers};
  if (method == "POST") request.headers.emplace_back("content-type", "application/json");
  try {
    return transport_(request);
  } catch (const SandboxError&) {
    throw;
  } catch (const std::exception& e) {
    throw_sandbox_error(transport_error(e.what()));
  }
}

HttpResponse Sender::send_execute(const std::string& path, const std::string& body,
                                  const Headers& headers,
                                  const std::function<void(std::string_view)>& on_stdout_text,
                                  const std::function<void(std::string_view)>& on_stderr_text) {
  if (http_) {
    return send_execute_or_throw(*http_, path, body, headers, on_stdout_text, on_stderr_text);
  }
  return send("POST", path, body, headers);
}

void Sender::set_timeout(std::chrono::milliseconds timeout) {
  if (http_) http_->set_timeout(timeout);
}

void deliver_unstreamed(const ExecutionResult& result,
                        const std::function<void(std::string_view)>& on_stdout_text,
                        const std::function<void(std::string_view)>& on_stderr_text) {
  const auto deliver = [](const std::vector<std::string>& lines,
                          const std::function<void(std::string_view)>& callback) {
    if (!callback) return;
    for (const auto& line : lines) callback(line + "\n");
  };
  deliver(result.outcome.logs.stdout_lines, on_stdout_text);
  deliver(result.outcome.logs.stderr_lines, on_stderr_text);
}

}  // namespace sandbox::client_detail

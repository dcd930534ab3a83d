// The runtime server's routes (`upstream-protocol.md` §4): dispatch order, the stateless execute
// path and the refusal of code-context routes for engines without sessions.
#include <sandbox/clock.h>
#include <sandbox/protocol.h>
#include <sandbox/runtime.h>

#include <chrono>
#include <stdexcept>

#include <boost/json/serialize.hpp>

#include "protocol/execute_request.h"

namespace sandbox {
namespace {

HttpResponse error_http(const ErrorResponse& e) {
  return HttpResponse::json(e.http_status, boost::json::serialize(to_json(e)));
}

std::optional<std::uint64_t> content_length(const HttpRequest& r) {
  const auto v = r.header("content-length");
  if (!v) return std::nullopt;
  try {
    std::size_t used = 0;
    const auto n = std::stoull(*v, &used);
    if (used != v->size()) return std::nullopt;
    return n;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Splits "/interpreters/<key><rest>"; returns false for any other path.
bool match_interpreters(std::string_view path, std::string& key, std::string& rest) {
  constexpr std::string_view kPrefix = "/interpreters/";
  if (!path.starts_with(kPrefix)) return false;
  const std::string_view tail = path.substr(kPrefix.size());
  const auto slash = tail.find('/');
  key = std::string(tail.substr(0, slash));
  if (key.empty()) return false;
  rest = slash == std::string_view::npos ? "/" : std::string(tail.substr(slash));
  return true;
}

class StatelessRuntime final : public InterpreterRuntime {
 public:
  explicit StatelessRuntime(Engine engine) : engine_(std::move(engine)) {}

  const Engine& engine() const override { return engine_; }
  bool contexts() const override { return false; }

  HeadDecision on_head(const HttpRequest& head) override {
    HeadDecision d;
    d.body_limit = kMaxRequestBytes;
    d.too_large = error_http(ApiError(413, "Request too large").to_response(clock_.now_ms()));
    const std::string_view path = head.path();
    std::string key, rest;
    if (path == "/interpreter" || match_interpreters(path, key, rest)) return d;
    if (path != "/execute") {
      d.early_response = HttpResponse::text(404, "Not found");
      return d;
    }
    if (head.method != "POST") {
      d.early_response = HttpResponse::text(405, "Method not allowed");
      return d;
    }
    if (!is_json_content_type(head.header("content-type").value_or(""))) {
      d.early_response = error_http(
          ApiError(415, "Content-Type must be application/json").to_response(clock_.now_ms()));
      return d;
    }
    if (const auto n = content_length(head); n && *n > kMaxRequestBytes) {
      d.early_response = d.too_large;
    }
    return d;
  }

  HttpResponse handle(HttpRequest request) override {
    try {
      const std::string_view path = request.path();
      if (path == "/interpreter") return probe();
      std::string key, rest;
      if (match_interpreters(path, key, rest)) {
        if (!valid_interpreter_key(key)) throw ApiError(400, "Invalid interpreter key");
        throw ApiError(400, "Code contexts are not supported for " + engine_.language);
      }
      if (path != "/execute") return HttpResponse::text(404, "Not found");
      if (request.method != "POST") return HttpResponse::text(405, "Method not allowed");
      const ExecutionRequest exec = parse_execute_request(request.body, engine_.language);
      return HttpResponse::json(200, boost::json::serialize(to_json(execute(exec))));
    } catch (const std::exception& e) {
      return error_http(error_response_for(e, clock_.now_ms()));
    }
  }

 private:
  HttpResponse probe() const {
    const boost::json::object o{{"language", engine_.language},
                                {"engine", engine_.engine_name},
                                {"contexts", contexts()},
                                {"protocol", kInterpreterProtocolVersion}};
    return HttpResponse::json(200, boost::json::serialize(o));
  }

  ExecutionResult execute(const ExecutionRequest& request) const {
    ExecutionResult result;
    result.code = request.code;
    result.language = engine_.language;
    result.engine = engine_.engine_name;
    const auto start = std::chrono::steady_clock::now();
    try {
      result.outcome = engine_.run(request);
    } catch (const std::exception& e) {
      result.outcome = engine_error_outcome(e);
    }
    result.duration_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

  Engine engine_;
  SystemClock clock_;
};

}  // namespace

void InterpreterRuntime::serve(const ServeOptions& options,
                               const std::function<void(std::uint16_t)>& on_listening) {
  HttpServer server(*this, options);
  if (on_listening) on_listening(server.port());
  server.run();
}

std::unique_ptr<InterpreterRuntime> define_interpreter_runtime(Engine engine) {
  if (engine.language.empty()) throw std::invalid_argument("engine.language must not be empty");
  if (engine.engine_name.empty()) throw std::invalid_argument("engine.engine_name must not be empty");
  if (engine.build.empty()) throw std::invalid_argument("engine.build must not be empty");
  if (!engine.run) throw std::invalid_argument("engine.run must be set");
  return std::make_unique<StatelessRuntime>(std::move(engine));
}

}  // namespace sandbox

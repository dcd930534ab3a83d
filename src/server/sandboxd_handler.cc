#include "server/sandboxd_handler.h"

#include <algorithm>
#include <cctype>
#include <chrono>

#include <boost/json/serialize.hpp>

#include <sandbox/protocol.h>
#include <sandbox/runtime.h>
#include <sandbox/version.h>
#include <sandbox/workspace.h>

#include "http/error_answers.h"
#include "http/event_stream.h"
#include "http/metrics_http.h"
#include "http/route_table.h"
#include "mcp/mcp_http.h"
#include "protocol/execute_request.h"

namespace sandbox {
namespace {

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Compares without stopping at the first difference (API keys).
bool same_secret(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  }
  return diff == 0;
}

// A built-in engine's limits for GET /languages (docs/sandbox-api.md#languages, L2): its own four,
// then the protocol's caps that every execution in this process has (output, result, workspace
// file), so a client such as the Playground states them without a copy of the constants.
boost::json::object limits_json(const EngineLimits& l) {
  return {{"codeBytes", l.code_bytes},
          {"requestBytes", l.request_bytes},
          {"fuel", l.fuel},
          {"memoryBytes", l.memory_bytes},
          {"outputBytes", kOutputLimitBytes},
          {"outputChunks", kOutputLimitChunks},
          {"resultBytes", kResultLimitBytes},
          {"fileBytes", kMaxFileBytes}};
}

}  // namespace

struct SandboxdHandler::Route {
  enum class Kind {
    kHealth,
    kMetrics,
    kLanguages,
    kExecute,
    kSandbox,
    kRuntime,
    kMcp,
    kWrongMethod,
    kNotFound
  };
  Kind kind = Kind::kNotFound;
  std::string name;                // sandbox id, binding, or language
  std::string rest;                // after /sandboxes/{id} or /runtimes/{binding}; may be empty
  std::string allow;               // kWrongMethod: the methods the path takes
  Kind refused = Kind::kNotFound;  // kWrongMethod: the route the method does not fit

  // sandboxd's routes (docs/sandbox-api.md); a sandbox's and a runtime's own routes are theirs.
  static Route of(std::string_view method, std::string_view path) {
    static const RouteTable<Kind> routes{
        {"*", "/healthz", Kind::kHealth},
        {"*", kMetricsPath, Kind::kMetrics},
        {"GET", "/languages", Kind::kLanguages},
        {"*", "/mcp", Kind::kMcp},
        {"POST", "/execute/{language}", Kind::kExecute},
        {"*", "/sandboxes/{id}", Kind::kSandbox},
        {"*", "/sandboxes/{id}{rest...}", Kind::kSandbox},
        {"*", "/runtimes/{binding}", Kind::kRuntime},
        {"*", "/runtimes/{binding}{rest...}", Kind::kRuntime},
    };
    const auto match = routes.match(method, path);
    Route r;
    switch (match.outcome) {
      case RouteTable<Kind>::Match::Outcome::kNotFound:
        return r;
      case RouteTable<Kind>::Match::Outcome::kWrongMethod:
        r.kind = Kind::kWrongMethod;
        r.allow = match.allow;
        r.refused = match.id;
        return r;
      case RouteTable<Kind>::Match::Outcome::kFound:
        break;
    }
    r.kind = match.id;
    if (!match.params.empty()) r.name = match.param(0);
    if (match.params.size() > 1) r.rest = match.param(1);
    return r;
  }

  // The 405 of a kWrongMethod route; the execute route words it as docs/sandbox-api.md does.
  HttpResponse method_refusal(std::int64_t now_ms) const {
    return method_not_allowed(allow, refused == Kind::kExecute ? "Use POST" : "Method not allowed",
                              now_ms);
  }
};

SandboxdHandler::SandboxdHandler(SandboxService& service, const Clock& clock,
                                 SandboxdOptions options)
    : service_(service),
      clock_(clock),
      options_(std::move(options)),
      site_guard_(options_.allowed_hosts),
      slots_(std::make_shared<ExecutionSlots>()),
      mcp_([this](const std::string& method, const std::string& path, const std::string& body) {
        return mcp_fetch(method, path, body);
      }) {
  slots_->running.assign(options_.api_keys.size(), 0);
  if (options_.metrics != nullptr) {
    refused_executions_ = &refusal_counter(*options_.metrics, "max_executions_per_key");
  }
}

std::shared_ptr<void> SandboxdHandler::take_execution_slot(std::size_t index) {
  std::lock_guard lock(slots_->mu);
  std::size_t& running = slots_->running.at(index);
  if (options_.max_executions_per_key != 0 && running >= options_.max_executions_per_key) {
    return nullptr;
  }
  ++running;
  // The deleter gives the slot back (it deletes nothing) and keeps the counters alive, since
  // the server may release a hold after the handler is gone. Non-null: a null hold is "none".
  return std::shared_ptr<void>(slots_.get(), [slots = slots_, index](void*) {
    std::lock_guard lock(slots->mu);
    --slots->running[index];
  });
}

HttpResponse SandboxdHandler::error(ErrorKind kind, const std::string& message) const {
  return error_json(ApiError(kind, message).to_response(clock_.now_ms()));
}

std::optional<std::size_t> SandboxdHandler::authorized_key(const HttpRequest& request) const {
  if (options_.api_keys.empty()) return 0;
  const auto header = request.header("authorization");
  if (!header) return std::nullopt;
  constexpr std::string_view kBearer = "bearer ";
  if (header->size() <= kBearer.size() || lowercase(header->substr(0, kBearer.size())) != kBearer) {
    return std::nullopt;
  }
  const std::string_view token = std::string_view(*header).substr(kBearer.size());
  std::optional<std::size_t> found;
  // Every key is compared (no early exit), so the time does not tell which one matched.
  for (std::size_t i = 0; i < options_.api_keys.size(); ++i) {
    if (same_secret(token, options_.api_keys[i]) && !found) found = i;
  }
  return found;
}

void SandboxdHandler::log(const HttpRequest& request, const Route& route, int status,
                          double duration_ms) const {
  if (!options_.log) return;
  options_.log(RequestLogEntry{request.method, std::string(request.path()), status, duration_ms,
                               route.kind == Route::Kind::kSandbox ? route.name : ""});
}

HeadDecision SandboxdHandler::on_head(const HttpRequest& head) {
  const Route route = Route::of(head.method, head.path());
  HeadDecision d;
  d.body_limit = kMaxRequestBytes;
  d.too_large = error(ErrorKind::kRequestTooLarge, "Request too large");
  const auto finish = [&](HeadDecision decision) {
    if (decision.early_response) log(head, route, decision.early_response->status, 0);
    return decision;
  };
  if (route.kind == Route::Kind::kHealth) {
    // Answered here, on the I/O thread: health checks must not wait behind busy workers.
    d.early_response = HttpResponse::json(200, R"({"status":"ok"})");
    return finish(std::move(d));
  }
  const bool static_file = options_.static_files && options_.static_files->contains(head.path());
  if (options_.api_keys.empty()) {
    // The Playground's files take no body: a POST there is their 405, not a 415.
    if (auto refusal = site_guard_.check(head, /*json_body=*/!static_file)) {
      d.early_response = error(refusal->kind, refusal->message);
      return finish(std::move(d));
    }
  }
  if (static_file) {
    // The page must load before it can ask for a key (docs/sandbox-api.md#playground).
    if (head.method == "GET") {
      d.early_response = options_.static_files->respond(head);
    } else {
      d.early_response = method_not_allowed("GET", "Method not allowed", clock_.now_ms());
    }
    return finish(std::move(d));
  }
  const std::optional<std::size_t> key = authorized_key(head);
  if (!key) {
    HttpResponse r = error(ErrorKind::kUnauthorized, "Missing or invalid API key");
    r.headers.emplace_back("www-authenticate", "Bearer");
    d.early_response = std::move(r);
    return finish(std::move(d));
  }
  // Serial key and long-running flag (include/sandbox/http.h), and the per-API-key slot.
  const bool runtime_execute =
      route.kind == Route::Kind::kRuntime &&
      (route.rest == "/execute" ||
       (route.rest.starts_with("/interpreters/") && route.rest.ends_with("/execute")));
  const bool execution =
      head.method == "POST" && (route.kind == Route::Kind::kExecute ||
                                (route.kind == Route::Kind::kSandbox && route.rest == "/execute") ||
                                runtime_execute || route.kind == Route::Kind::kMcp);
  std::shared_ptr<void> slot;
  if (execution && !options_.api_keys.empty()) {
    slot = take_execution_slot(*key);
    if (!slot) {
      if (refused_executions_ != nullptr) refused_executions_->add();
      d.early_response =
          busy_response(ErrorKind::kTooManyRequests,
                        "Too many executions in flight for this API key (at most " +
                            std::to_string(options_.max_executions_per_key) + "); retry later",
                        "max_executions_per_key");
      return finish(std::move(d));
    }
  }
  const auto admit = [&](HeadDecision decision) {
    decision.long_running = execution;
    decision.hold = slot;
    // Streaming (docs/sandbox-api.md#streaming-output); a runtime route decided it itself.
    if (route.kind != Route::Kind::kRuntime) {
      decision.may_stream = execution && accepts_event_stream(head);
    }
    if (route.kind == Route::Kind::kSandbox) {
      decision.serial_key = "sandbox '" + route.name + "'";
    } else if (route.kind == Route::Kind::kRuntime && route.rest.starts_with("/interpreters/")) {
      const std::string_view tail = std::string_view(route.rest).substr(14);
      decision.serial_key =
          "interpreter key '" + std::string(tail.substr(0, tail.find('/'))) + "' of " + route.name;
    }
    return finish(std::move(decision));
  };
  switch (route.kind) {
    case Route::Kind::kMetrics:
      // Answered here, on the I/O thread, like /healthz, but behind the key and the site guard.
      if (options_.metrics != nullptr) {
        d.early_response = metrics_response(*options_.metrics, head);
        return finish(std::move(d));
      }
      break;
    case Route::Kind::kRuntime: {
      Binding* b = service_.bindings().find(route.name);
      InterpreterRuntime* runtime = b ? b->local_runtime() : nullptr;
      if (!runtime) {
        d.early_response = HttpResponse::text(404, "Not found");
        return finish(std::move(d));
      }
      HttpRequest inner = head;
      inner.target = route.rest.empty() ? "/" : route.rest;
      if (const auto q = head.target.find('?'); q != std::string::npos) {
        inner.target += head.target.substr(q);
      }
      return admit(runtime->on_head(inner));
    }
    case Route::Kind::kSandbox:
      if (route.rest == "/files") d.body_limit = kMaxFilesRequestBytes;
      break;
    case Route::Kind::kMcp:
      if (auto refusal = mcp::check_mcp_head(head, !options_.api_keys.empty())) {
        HttpResponse r = error(refusal->kind, refusal->message);
        if (!refusal->allow.empty()) r.headers.emplace_back("allow", refusal->allow);
        d.early_response = std::move(r);
        return finish(std::move(d));
      }
      d.body_limit = mcp::kMaxMcpMessageBytes;
      break;
    case Route::Kind::kWrongMethod:
      // An execution's 405 comes before its body is read; the others' after (in dispatch).
      if (route.refused == Route::Kind::kExecute) {
        d.early_response = route.method_refusal(clock_.now_ms());
        return finish(std::move(d));
      }
      break;
    case Route::Kind::kExecute:
      if (!is_json_content_type(head.header("content-type").value_or(""))) {
        d.early_response =
            error(ErrorKind::kUnsupportedMediaType, "Content-Type must be application/json");
        return finish(std::move(d));
      }
      break;
    default:
      break;
  }
  if (const auto n = head.content_length(); n && *n > d.body_limit) d.early_response = d.too_large;
  return admit(std::move(d));
}

HttpResponse SandboxdHandler::handle(HttpRequest request) {
  const auto start = std::chrono::steady_clock::now();
  const Route route = Route::of(request.method, request.path());
  // The request may be handed on (moved) to a runtime: keep what the log line needs.
  HttpRequest head;
  head.method = request.method;
  head.target = std::string(request.path());
  const HttpResponse response = answer(route, request);
  log(head, route, response.status,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  return response;
}

HttpResponse SandboxdHandler::answer(const Route& route, HttpRequest& request) {
  try {
    return dispatch(route, request);
  } catch (const std::exception& e) {
    return error_json(error_response_for(e, clock_.now_ms()));
  }
}

HttpResponse SandboxdHandler::dispatch(const Route& route, HttpRequest& request) {
  using Kind = Route::Kind;
  switch (route.kind) {
    case Kind::kHealth:
      return HttpResponse::json(200, R"({"status":"ok"})");
    case Kind::kLanguages:
      return languages();
    case Kind::kExecute:
      return execute_language(route.name, request);
    case Kind::kWrongMethod:
      return route.method_refusal(clock_.now_ms());
    case Kind::kSandbox: {
      EventStreamWriter events(request.stream);
      return events.finish(service_.handle(route.name, request.method,
                                           route.rest.empty() ? "/" : route.rest, request.body,
                                           events.observer()));
    }
    case Kind::kRuntime: {
      Binding* b = service_.bindings().find(route.name);
      InterpreterRuntime* runtime = b ? b->local_runtime() : nullptr;
      if (!runtime) return HttpResponse::text(404, "Not found");
      const auto q = request.target.find('?');
      request.target = (route.rest.empty() ? std::string("/") : route.rest) +
                       (q == std::string::npos ? std::string() : request.target.substr(q));
      return runtime->handle(std::move(request));
    }
    case Kind::kMcp:
      return mcp::handle_mcp_post(mcp_, request);
    case Kind::kMetrics:  // answered by on_head when there is a registry
    case Kind::kNotFound:
      break;
  }
  return error(ErrorKind::kRouteNotFound, "Not found");
}

HttpResponse SandboxdHandler::mcp_fetch(const std::string& method, const std::string& path,
                                        const std::string& body) {
  const Route route = Route::of(method, path);
  if (route.kind == Route::Kind::kMcp || route.kind == Route::Kind::kRuntime) {
    return error(ErrorKind::kRouteNotFound, "Not found");
  }
  const std::uint64_t limit = route.kind == Route::Kind::kSandbox && route.rest == "/files"
                                  ? kMaxFilesRequestBytes
                                  : kMaxRequestBytes;
  if (body.size() > limit) return error(ErrorKind::kRequestTooLarge, "Request too large");
  HttpRequest request;
  request.method = method;
  request.target = path;
  request.headers.emplace_back("content-type", "application/json");
  request.body = body;
  return answer(route, request);
}

HttpResponse SandboxdHandler::languages() {
  boost::json::array list;
  for (const auto& b : service_.bindings().all()) {
    boost::json::object entry{{"id", lowercase(b->name())}, {"binding", b->name()}};
    if (InterpreterRuntime* runtime = b->local_runtime()) {
      const Engine& engine = runtime->engine();
      entry["language"] = engine.language;
      entry["engine"] = engine.engine_name;
      entry["contexts"] = runtime->contexts();
      entry["remote"] = false;
      entry["available"] = true;
      entry["limits"] = limits_json(engine.limits);
    } else {
      entry["remote"] = true;
      entry["url"] = b->location();
      entry["limits"] = nullptr;
      try {
        const RuntimeProbe probe = probe_binding(*b);
        entry["language"] = probe.language;
        entry["engine"] = probe.engine;
        entry["contexts"] = probe.contexts;
        entry["available"] = true;
      } catch (const std::exception& e) {
        entry["language"] = nullptr;
        entry["engine"] = nullptr;
        entry["contexts"] = false;
        entry["available"] = false;
        entry["error"] = e.what();
      }
    }
    list.push_back(std::move(entry));
  }
  // `server`: which sandboxd answers, at the kit's version (docs/sandbox-api.md#languages, L1).
  return HttpResponse::json(
      200, boost::json::serialize(boost::json::object{
               {"languages", list},
               {"server", boost::json::object{{"name", "sandboxd"}, {"version", kVersion}}}}));
}

Binding* SandboxdHandler::binding_for_language(const std::string& language) const {
  const std::string wanted = normalize_language(language);
  for (const auto& b : service_.bindings().all()) {
    if (lowercase(b->name()) == wanted) return b.get();
  }
  for (const auto& b : service_.bindings().all()) {
    if (InterpreterRuntime* runtime = b->local_runtime();
        runtime && language_accepted(wanted, runtime->engine().language)) {
      return b.get();
    }
  }
  return nullptr;
}

HttpResponse SandboxdHandler::execute_language(const std::string& language,
                                               const HttpRequest& request) {
  EventStreamWriter events(request.stream);
  Binding* binding = binding_for_language(language);
  if (!binding) return error(ErrorKind::kBadRequest, "Unsupported language: " + language);
  const InterpreterRuntime* runtime = binding->local_runtime();
  const std::string runtime_language =
      runtime ? runtime->engine().language : normalize_language(language);
  const ExecutionRequest exec = parse_execute_request(request.body, runtime_language);
  boost::json::object forward{{"code", exec.code}};
  if (!exec.env_vars.empty()) {
    boost::json::object env;
    for (const auto& [k, v] : exec.env_vars) env[k] = v;
    forward["envVars"] = std::move(env);
  }
  HttpResponse answer;
  try {
    answer = binding->fetch_execute("/execute", boost::json::serialize(forward), events.observer());
  } catch (const std::exception& e) {
    return events.finish(
        error(ErrorKind::kUpstreamFailed, "Binding '" + binding->name() + "' failed: " + e.what()));
  }
  return events.finish(std::move(answer));
}

}  // namespace sandbox

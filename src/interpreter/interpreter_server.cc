// InterpreterServer: the HTTP routes of an interpreter key (docs/protocol.md#interpreter-routes)
// and the entry points of execute-in-context and idle expiry. Each call decodes its request,
// takes the key's actor (ResidentCache) and lease (KeyLeases), calls the context state machine
// (ContextLifecycle, whose rules are docs/contexts.md) and encodes what it returns.
#include <algorithm>
#include <cmath>
#include <mutex>

#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

#include <sandbox/interpreter.h>
#include <sandbox/metrics.h>

#include "base/url_codec.h"
#include "base/utf8.h"
#include "http/route_table.h"
#include "interpreter/context_lifecycle.h"
#include "interpreter/execute_args.h"
#include "interpreter/key_leases.h"
#include "interpreter/over_store.h"
#include "interpreter/resident_cache.h"
#include "protocol/execute_request.h"
#include "protocol/interpreter_execute_request.h"
#include "storage/interpreter_store.h"
#include "storage/lease.h"
#include "storage/storage_error.h"

namespace sandbox {
namespace {

HttpResponse json_response(int status, const boost::json::object& o) {
  return HttpResponse::json(status, boost::json::serialize(o));
}

// An interpreter key's routes, below /interpreters/{key} (docs/protocol.md#interpreter-routes).
// The context id is the rest of the path, '/' included.
enum class KeyRoute { kWipe, kCreateContext, kDeleteContext, kExecute };

const RouteTable<KeyRoute>& key_routes() {
  static const RouteTable<KeyRoute> routes{
      {"DELETE", "/", KeyRoute::kWipe},
      {"POST", "/contexts", KeyRoute::kCreateContext},
      {"DELETE", "/contexts/{id...}", KeyRoute::kDeleteContext},
      {"POST", "/execute", KeyRoute::kExecute},
  };
  return routes;
}

HttpResponse error_http(const InterpreterCallError& e) {
  return HttpResponse::json(e.status, boost::json::serialize(to_json(e.body)));
}

// The body of POST /contexts: {id, cwd?} (docs/protocol.md#create-a-context C1-C3).
NewContext decode_new_context(const std::string& body) {
  const boost::json::object o = parse_json_object(body);
  const auto* id = o.if_contains("id");
  if (!id || !id->is_string() || id->get_string().empty() ||
      utf16_length(id->get_string()) > kMaxContextIdLength) {
    throw ApiError(ErrorKind::kBadRequest,
                   "id must be a non-empty string of at most 128 characters");
  }
  // Neither backend can key a row by it alike (PostgreSQL TEXT refuses NUL).
  if (id->get_string().find('\0') != std::string_view::npos) {
    throw ApiError(ErrorKind::kBadRequest, "id must not contain a NUL character");
  }
  NewContext request;
  request.id = std::string(id->get_string());
  if (const auto* c = o.if_contains("cwd")) {
    if (!c->is_string() || c->get_string().empty()) {
      throw ApiError(ErrorKind::kBadRequest, "cwd must be a non-empty string");
    }
    try {
      request.cwd = normalize_workspace_path(c->get_string()).absolute;
    } catch (const WorkspaceError& e) {
      throw ApiError(ErrorKind::kBadRequest, e.what());
    }
  }
  return request;
}

}  // namespace

std::int64_t parse_idle_ttl(const char* value) {
  if (!value || !*value) return kDefaultIdleTtlMs;
  char* end = nullptr;
  const double d = std::strtod(value, &end);
  while (end && *end == ' ') ++end;
  if (!end || *end != '\0' || !std::isfinite(d) || d < 0 ||
      d > static_cast<double>(kMaxIdleTtlMs)) {
    return kDefaultIdleTtlMs;
  }
  return static_cast<std::int64_t>(d);
}

struct InterpreterServer::Impl {
  Impl(const Engine& e, InterpreterStore& s, const Clock& c, InterpreterServerOptions o)
      : engine(e),
        store(s),
        clock(c),
        options(std::move(o)),
        // `options` is declared (so initialized) before the members below, which read it.
        residents(c, options.max_resident_instances),
        leases(s, options.metrics ? &lease_takeover_counter(*options.metrics, "interpreter")
                                  : nullptr),
        lifecycle(
            e, s, c, residents,
            ContextLifecycleOptions{options.idle_ttl_ms, options.max_keys, options.on_alarm_armed,
                                    EngineMetrics::make(options.metrics, e.language, true)}) {
    if (options.metrics) {
      resident_gauge = options.metrics->gauge_callback(
          "sandbox_resident_contexts",
          "Code contexts whose instance is live in memory (resident), by language",
          {{"language", e.language}},
          [this] { return static_cast<double>(residents.resident_count()); });
    }
  }

  const Engine& engine;
  InterpreterStore& store;
  const Clock& clock;
  InterpreterServerOptions options;
  ResidentCache residents;
  KeyLeases leases;
  ContextLifecycle lifecycle;
  // Reads `residents`; declared after it, so unregistered before it goes.
  MetricsRegistry::Callback resident_gauge;

  // Takes or renews this node's lease on `key` before acting on it; a take-over drops what is
  // cached (docs/contexts.md#cl11). Throws LeaseHeldError while another node holds it.
  LeaseGrant claim(const std::string& key, KeyState& state) {
    const LeaseGrant grant = leases.claim(key);
    lifecycle.take_over(state, grant.token);
    return grant;
  }

  // Forgets the key's actor when the request ends, if it then holds nothing live (declared
  // before the state is taken, so it runs after the request released it).
  struct KeyRelease {
    Impl& d;
    const std::string& key;
    ~KeyRelease() { d.residents.release_if_idle(key); }
  };

  // Whether `key` exists: this node has its actor, or the store has its meta row.
  bool known(const std::string& key) { return residents.has(key) || store.get_meta(key); }

  // Any failure of a call as its answer, by the one boundary mapping (a lease another node holds
  // included: 503, the caller may retry).
  InterpreterCallError call_error(const std::exception& e) {
    const ErrorResponse body = error_response_for(e, clock.now_ms());
    return InterpreterCallError{body.http_status, body};
  }
};

InterpreterServer::InterpreterServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::unique_ptr<InterpreterServer> make_interpreter_server(const Engine& engine,
                                                           InterpreterStore& store,
                                                           const Clock& clock,
                                                           InterpreterServerOptions options) {
  return std::make_unique<InterpreterServer>(
      std::make_unique<InterpreterServer::Impl>(engine, store, clock, std::move(options)));
}

InterpreterServer::~InterpreterServer() { impl_->residents.close_all(); }

const Engine& InterpreterServer::engine() const { return impl_->engine; }

std::size_t InterpreterServer::resident_count() const { return impl_->residents.resident_count(); }

std::size_t InterpreterServer::key_count() const { return impl_->residents.key_count(); }

HttpResponse InterpreterServer::handle(const std::string& key, const std::string& method,
                                       const std::string& path, const std::string& body,
                                       const OutputObserver& on_output) {
  Impl& d = *impl_;
  // K1, then the route, before anything of the key is touched: an unknown route makes no
  // state, no lease and no row (docs/protocol.md#interpreter-routes).
  if (!valid_interpreter_key(key)) {
    return error_http(d.call_error(ApiError(ErrorKind::kBadRequest, "Invalid interpreter key")));
  }
  const auto match = key_routes().match(method, path);
  // A known path with another method is a route this key does not have either: 404.
  if (!match.found()) {
    return error_http(d.call_error(ApiError(ErrorKind::kRouteNotFound, "Not found")));
  }
  const KeyRoute route = match.id;
  try {
    // Only creating a context creates a key: every other route on a key this node has never
    // seen, with no stored meta row, answers as for a key without contexts.
    if (route != KeyRoute::kCreateContext && !d.known(key)) {
      switch (route) {
        case KeyRoute::kWipe:
          return json_response(200, {{"success", true}});
        case KeyRoute::kDeleteContext:
          throw context_not_found(url_decode(match.param(0)));
        default: {
          // The request's own errors come first, as for a known key.
          const HttpExecuteArgs parsed = parse_http_execute_args(body);
          validate_execute_args(parsed.args);
          throw context_not_found(parsed.args.context_id);
        }
      }
    }
    const Impl::KeyRelease release{d, key};
    auto state = d.residents.state_for(key);
    std::lock_guard lock(state->lock);
    if (route == KeyRoute::kExecute) d.lifecycle.expect_call(*state);
    d.claim(key, *state);
    switch (route) {
      case KeyRoute::kWipe:
        d.lifecycle.wipe(key, *state);
        return json_response(200, {{"success", true}});
      case KeyRoute::kCreateContext: {
        d.lifecycle.ensure_meta(key, *state);
        const ContextRow row = d.lifecycle.create_context(key, *state, decode_new_context(body));
        return json_response(201,
                             {{"id", row.id}, {"cwd", row.cwd}, {"createdAt", row.created_at}});
      }
      case KeyRoute::kDeleteContext:
        d.lifecycle.delete_context(key, *state, url_decode(match.param(0)));
        return json_response(200, {{"success", true}});
      case KeyRoute::kExecute: {
        HttpExecuteArgs parsed = parse_http_execute_args(body);
        parsed.args.on_output = on_output;
        auto outcome = d.lifecycle.execute(key, *state, parsed.args, &parsed.files, nullptr);
        if (auto* missing = std::get_if<std::vector<std::string>>(&outcome)) {
          boost::json::array m;
          for (const auto& p : *missing) m.emplace_back(p);
          return json_response(200, {{"resync", true}, {"missing", std::move(m)}});
        }
        return json_response(200, to_json(std::get<InterpreterExecuteResponse>(outcome), true));
      }
    }
    throw ApiError(ErrorKind::kRouteNotFound, "Not found");
  } catch (const std::exception& e) {
    return error_http(d.call_error(e));
  }
}

InterpreterExecuteResult InterpreterServer::execute_in_context(const std::string& key,
                                                               const InterpreterExecuteArgs& args,
                                                               const GetWorkspaceFiles& get_files) {
  Impl& d = *impl_;
  try {
    if (!valid_interpreter_key(key))
      throw ApiError(ErrorKind::kBadRequest, "Invalid interpreter key");
    if (!d.known(key)) {
      validate_execute_args(args);
      throw context_not_found(args.context_id);
    }
    const Impl::KeyRelease release{d, key};
    auto state = d.residents.state_for(key);
    std::lock_guard lock(state->lock);
    d.lifecycle.expect_call(*state);
    d.claim(key, *state);
    auto outcome = d.lifecycle.execute(key, *state, args, nullptr, &get_files);
    return std::get<InterpreterExecuteResponse>(std::move(outcome));
  } catch (const std::exception& e) {
    return d.call_error(e);
  }
}

std::optional<std::int64_t> InterpreterServer::next_alarm() const {
  std::optional<std::int64_t> next;
  for (const auto& [key, deadline] : impl_->store.list_alarms()) {
    const std::int64_t at = impl_->leases.effective_deadline(key, deadline);
    if (!next || at < *next) next = at;
  }
  return next;
}

int InterpreterServer::run_due_alarms() {
  Impl& d = *impl_;
  int wiped = 0;
  const std::int64_t now = d.clock.now_ms();
  for (const auto& [key, deadline] : d.store.list_alarms()) {
    if (deadline > now) break;  // soonest first
    if (d.leases.deferred(key, now)) continue;
    auto state = d.residents.state_for(key);
    std::lock_guard lock(state->lock);
    // Another node's key (several nodes share the database): its owner expires it; this node
    // does only once the owner's lease has run out (the owner died). A lease taken just for
    // the alarm is given back afterwards, so the key's next request may go to any node.
    LeaseGrant grant;
    try {
      grant = d.claim(key, *state);
    } catch (const LeaseHeldError& e) {
      d.leases.defer(key, now, e.remaining_ms());
      continue;
    } catch (const std::exception& e) {
      spdlog::error("interpreter {}: idle expiry failed: {}", key, e.what());
      continue;
    }
    const AlarmLease give_back(d.store, key, grant);
    try {
      if (d.lifecycle.expire_if_idle(key, *state, now)) ++wiped;
    } catch (const std::exception& e) {
      spdlog::error("interpreter {}: idle expiry failed: {}", key, e.what());
    }
  }
  return wiped;
}

}  // namespace sandbox

// The Sandbox actor's routes other than execution: dispatch, meta, env, info, contexts, files,
// wipe and the idle alarm. Execution is in sandbox_execute.cc.
#include "sandbox/sandbox.h"

#include <set>

#include <boost/json/serialize.hpp>

#include <sandbox/protocol.h>

#include "base/url_codec.h"
#include "base/uuid.h"
#include "http/error_answers.h"
#include "http/route_table.h"
#include "protocol/context_request.h"
#include "protocol/env_limits.h"
#include "protocol/execute_request.h"
#include "sandbox/env_vars.h"
#include "sandbox/error_reply.h"
#include "sandbox/files_api.h"
#include "sandbox/interpreter_key.h"
#include "storage/storage_error.h"

namespace sandbox {
namespace {

HttpResponse json_ok(int status, const boost::json::object& body) {
  return HttpResponse::json(status, boost::json::serialize(body));
}

// A sandbox's routes, below /sandboxes/{id} (docs/sandbox-api.md).
enum class SandboxRoute {
  kInfo,
  kDestroy,
  kExecute,
  kCreateContext,
  kListContexts,
  kDeleteContext,
  kSetEnv,
  kFiles
};

const RouteTable<SandboxRoute>& sandbox_routes() {
  static const RouteTable<SandboxRoute> routes{
      {"GET", "/", SandboxRoute::kInfo},
      {"DELETE", "/", SandboxRoute::kDestroy},
      {"POST", "/execute", SandboxRoute::kExecute},
      {"GET", "/contexts", SandboxRoute::kListContexts},
      {"POST", "/contexts", SandboxRoute::kCreateContext},
      {"DELETE", "/contexts/{id}", SandboxRoute::kDeleteContext},
      {"POST", "/env", SandboxRoute::kSetEnv},
      {"POST", "/files", SandboxRoute::kFiles},
  };
  return routes;
}

}  // namespace

Sandbox::Sandbox(std::string id, const SandboxEnvironment& env)
    : id_(std::move(id)), env_(env), workspace_(env.store, id_, env.clock) {}

std::string Sandbox::now_iso() const { return iso8601_ms(env_.clock.now_ms()); }

HttpResponse Sandbox::handle(const std::string& method, const std::string& path,
                             const std::string& body, const OutputObserver& on_output) {
  const std::int64_t now = env_.clock.now_ms();
  try {
    claim();
    const auto route = sandbox_routes().match(method, path.empty() ? "/" : path);
    switch (route.outcome) {
      case RouteTable<SandboxRoute>::Match::Outcome::kNotFound:
        return error_json(ApiError(ErrorKind::kRouteNotFound, "Not found").to_response(now));
      case RouteTable<SandboxRoute>::Match::Outcome::kWrongMethod:
        return method_not_allowed(route.allow, "Method not allowed", now);
      case RouteTable<SandboxRoute>::Match::Outcome::kFound:
        break;
    }
    switch (route.id) {
      case SandboxRoute::kInfo:
        return info();
      case SandboxRoute::kDestroy:
        return destroy();
      case SandboxRoute::kExecute:
        return execute(body, on_output);
      case SandboxRoute::kCreateContext:
        return create_context(body);
      case SandboxRoute::kListContexts:
        return list_contexts();
      case SandboxRoute::kDeleteContext:
        return delete_context(url_decode(route.param(0)));
      case SandboxRoute::kSetEnv:
        return set_env(body);
      case SandboxRoute::kFiles:
        return files(body);
    }
    return error_json(ApiError(ErrorKind::kRouteNotFound, "Not found").to_response(now));
  } catch (const ErrorReply& reply) {
    return reply.response();
  } catch (const StorageError& e) {
    // Whatever was cached may be ahead of the store now: reload it on the next call. A lease
    // another node holds (a load balancer moving ids, or a node that just died and whose lease
    // has not run out) changed nothing here: the cache stays, the caller may retry (503).
    if (!dynamic_cast<const LeaseHeldError*>(&e)) forget_cached();
    return error_json(error_response_for(e, now));
  } catch (const std::exception& e) {
    return error_json(error_response_for(e, now));
  }
}

// --- ownership among nodes ---------------------------------------------------------------------

LeaseGrant Sandbox::claim() {
  const LeaseGrant grant = env_.store.acquire_lease(id_);
  if (grant.taken_over() && env_.lease_takeovers != nullptr) env_.lease_takeovers->add();
  if (grant.token != lease_token_) {
    forget_cached();
    lease_token_ = grant.token;
  }
  return grant;
}

void Sandbox::forget_cached() {
  meta_loaded_ = false;
  meta_.reset();
  alarm_known_ = false;
  alarm_.reset();
  workspace_.discard();
}

void Sandbox::persist(const WorkspacePersist& diff, const std::optional<StoredRow>& context) {
  try {
    env_.store.persist(id_, diff, context);
  } catch (...) {
    workspace_.discard();
    throw;
  }
  workspace_.mark_persisted();
  if (env_.workspace_bytes_written != nullptr) {
    std::uint64_t bytes = 0;
    for (const auto& row : diff.upserts) bytes += row.data ? row.data->size() : 0;
    env_.workspace_bytes_written->add(bytes);
  }
}

// --- meta and the idle alarm -------------------------------------------------------------------

std::optional<boost::json::object>& Sandbox::meta() {
  if (!meta_loaded_) {
    meta_ = env_.store.get_meta(id_);
    meta_loaded_ = true;
  }
  return meta_;
}

boost::json::object& Sandbox::ensure_meta() {
  auto& m = meta();
  if (!m) {
    // A new sandbox: bounded, so ids made up by clients cannot fill the store (issue 12).
    // Creations at once (other ids, other nodes) may each pass the count: bounded by them.
    if (env_.store.count_sandboxes() >= env_.options.max_sandboxes) {
      throw ApiError(ErrorKind::kCapacityReached,
                     "Cannot create sandbox '" + id_ + "': this server keeps at most " +
                         std::to_string(env_.options.max_sandboxes) +
                         " sandboxes (--max-sandboxes); delete one or wait for idle expiry",
                     {{"maxSandboxes", env_.options.max_sandboxes}});
    }
    const std::string now = now_iso();
    boost::json::object created{{"format", kSandboxStorageFormat},
                                {"id", id_},
                                {"createdAt", now},
                                {"lastUsed", now},
                                {"envVars", boost::json::object{}},
                                {"lifetime", random_uuid()}};
    env_.store.put_meta(id_, created);
    m = std::move(created);
  }
  return *m;
}

void Sandbox::save_meta() {
  if (meta_) env_.store.put_meta(id_, *meta_);
}

std::optional<std::int64_t> Sandbox::touch() {
  const std::int64_t ttl = env_.options.idle_ttl_ms;
  if (!alarm_known_) {
    alarm_ = env_.store.get_alarm(id_);
    alarm_known_ = true;
  }
  if (ttl <= 0) {
    if (alarm_) env_.store.set_alarm(id_, std::nullopt);
    alarm_.reset();
    return std::nullopt;
  }
  const std::int64_t now = env_.clock.now_ms();
  const std::int64_t want = now + ttl;
  if (!alarm_ || (want - *alarm_) * 10 > ttl) {
    boost::json::object& m = ensure_meta();
    env_.store.set_alarm(id_, want);
    alarm_ = want;
    m["lastUsed"] = iso8601_ms(now);
    save_meta();
    return want;
  }
  return alarm_;
}

bool Sandbox::run_alarm() {
  const LeaseGrant grant = claim();  // LeaseHeldError: another node's sandbox, not ours to expire
  struct GiveBack {
    SandboxStore& store;
    const std::string& id;
    bool taken;
    ~GiveBack() {
      if (!taken) return;
      try {
        store.release_lease(id);
      } catch (const StorageError&) {
        // It runs out by itself after the TTL.
      }
    }
  } give_back{env_.store, id_, grant.acquired};
  try {
    const auto& m = meta();
    const std::int64_t ttl = env_.options.idle_ttl_ms;
    if (!m || ttl <= 0) {
      // Nothing to expire: consume the alarm so it does not fire again.
      env_.store.set_alarm(id_, std::nullopt);
      alarm_known_ = true;
      alarm_.reset();
      return false;
    }
    std::int64_t last_used = 0;
    if (const auto* lu = m->if_contains("lastUsed"); lu && lu->is_string()) {
      // An unreadable time leaves last_used at 0: the sandbox reads as idle since the epoch.
      static_cast<void>(parse_iso8601_ms(std::string(lu->get_string()), last_used));
    }
    const std::int64_t deadline = last_used + ttl;
    if (deadline > env_.clock.now_ms()) {
      env_.store.set_alarm(id_, deadline);
      alarm_known_ = true;
      alarm_ = deadline;
      return false;
    }
    wipe();
    return true;
  } catch (const StorageError&) {
    forget_cached();
    return false;
  }
}

// --- routes ------------------------------------------------------------------------------------

Binding& Sandbox::binding_named(const std::string& name) const {
  Binding* b = env_.bindings.find(name);
  if (!b) throw ApiError(ErrorKind::kBadRequest, "Unknown binding '" + name + "'");
  return *b;
}

std::string Sandbox::key_for(const std::string& binding) {
  boost::json::object& m = ensure_meta();  // *meta_
  const auto* lifetime = m.if_contains("lifetime");
  if (!lifetime || !lifetime->is_string() || lifetime->get_string().empty()) {
    // A meta row written without one (hand-made): mint it now, it is stable from here on.
    m["lifetime"] = random_uuid();
    save_meta();
    lifetime = m.if_contains("lifetime");
  }
  return interpreter_key(lifetime->get_string(), binding);
}

HttpResponse Sandbox::info() {
  const auto expires = touch();
  const boost::json::object& m = ensure_meta();
  boost::json::array contexts;
  for (const auto& row : env_.store.list_contexts(id_)) {
    contexts.push_back(ContextRecord::from_json(row.value).to_info_json());
  }
  WorkspaceStats stats;
  if (env_.options.file_api) stats = workspace_.get().stats();
  boost::json::object body{
      {"id", id_},
      {"createdAt", m.contains("createdAt") ? m.at("createdAt") : boost::json::value(nullptr)},
      {"lastUsed", m.contains("lastUsed") ? m.at("lastUsed") : boost::json::value(nullptr)},
      {"envVars", m.contains("envVars") ? m.at("envVars") : boost::json::object{}},
      {"contexts", std::move(contexts)},
      {"workspace", boost::json::object{{"files", stats.entries}, {"bytes", stats.bytes}}},
      {"fileApi", env_.options.file_api},
  };
  if (expires) {
    body["expiresAt"] = *expires;
  } else {
    body["expiresAt"] = nullptr;
  }
  return json_ok(200, body);
}

void Sandbox::wipe() {
  if (meta()) {
    std::set<std::string> bindings;
    for (const auto& row : env_.store.list_contexts(id_)) {
      bindings.insert(ContextRecord::from_json(row.value).binding);
    }
    for (const auto& name : bindings) {
      Binding* b = env_.bindings.find(name);
      if (!b) continue;
      const std::string key = key_for(name);
      try {
        b->fetch("DELETE", "/interpreters/" + url_encode(key));
      } catch (const std::exception&) {
        // Best effort (docs/sandbox-api.md#contexts): the runtime's own idle expiry collects what
        // is left.
      }
      b->forget(key);
    }
  }
  env_.store.wipe(id_);
  meta_loaded_ = true;
  meta_.reset();
  alarm_known_ = true;
  alarm_.reset();
  workspace_.reset_empty();
}

HttpResponse Sandbox::destroy() {
  wipe();
  return json_ok(200, {{"success", true}});
}

HttpResponse Sandbox::create_context(const std::string& body_text) {
  const ContextRequest request = decode_context_request(body_text);
  if (env_.store.list_contexts(id_).size() >= kMaxContexts) {
    throw ApiError(ErrorKind::kBadRequest,
                   "Cannot create more than " + std::to_string(kMaxContexts) + " code contexts");
  }
  Binding& b = binding_named(request.binding);
  const RuntimeProbe probe = probe_binding(b);
  if (!probe.contexts) {
    throw ApiError(ErrorKind::kBadRequest, "Code contexts are not supported by binding '" +
                                               b.name() + "' (" + probe.language + ")");
  }
  const ContextRecord record = register_context(b, probe, request.cwd, request.env_vars);
  touch();
  return json_ok(201, record.to_public_json());
}

ContextRecord Sandbox::register_context(Binding& binding, const RuntimeProbe& probe,
                                        const std::string& cwd, const EnvVars& env_vars) {
  if (env_.store.list_contexts(id_).size() >= kMaxContexts) {
    throw ApiError(ErrorKind::kBadRequest,
                   "Cannot create more than " + std::to_string(kMaxContexts) + " code contexts");
  }
  ContextRecord record;
  record.id = random_uuid();
  record.binding = binding.name();
  record.language = probe.language;
  record.engine = probe.engine;
  record.cwd = cwd;
  record.env_vars = env_vars;
  const std::string key = key_for(binding.name());
  HttpResponse answer;
  try {
    answer =
        binding.fetch("POST", "/interpreters/" + url_encode(key) + "/contexts",
                      boost::json::serialize(boost::json::object{{"id", record.id}, {"cwd", cwd}}));
  } catch (const std::exception& e) {
    throw ApiError(ErrorKind::kUpstreamFailed,
                   "Binding '" + binding.name() + "' failed: " + e.what());
  }
  if (answer.status < 200 || answer.status >= 300) {
    throw ErrorReply(HttpResponse::json(answer.status, answer.body));
  }
  record.created_at = now_iso();
  record.last_used = record.created_at;
  env_.store.put_context(id_, record.id, record.to_json());
  return record;
}

HttpResponse Sandbox::list_contexts() {
  boost::json::array out;
  for (const auto& row : env_.store.list_contexts(id_)) {
    out.push_back(ContextRecord::from_json(row.value).to_public_json());
  }
  touch();
  return json_ok(200, {{"contexts", std::move(out)}});
}

HttpResponse Sandbox::delete_context(const std::string& context_id) {
  const auto row = env_.store.get_context(id_, context_id);
  if (!row) {
    throw ApiError(ErrorKind::kContextNotFound, "Code context '" + context_id + "' not found",
                   {{"contextId", context_id}});
  }
  const ContextRecord record = ContextRecord::from_json(*row);
  if (Binding* b = env_.bindings.find(record.binding)) {
    try {
      b->fetch("DELETE", "/interpreters/" + url_encode(key_for(record.binding)) + "/contexts/" +
                             url_encode(context_id));
    } catch (const std::exception&) {
      // Best effort (docs/sandbox-api.md#wipe-a-sandbox).
    }
  }
  env_.store.delete_context(id_, context_id);
  touch();
  return json_ok(200, {{"success", true}});
}

HttpResponse Sandbox::set_env(const std::string& body_text) {
  const EnvPatch patch = decode_env_request(body_text);
  boost::json::object& m = ensure_meta();
  EnvVars current = env_from_json(m.if_contains("envVars"));
  apply_env_patch(current, patch);
  require_env_within_limits(current, "the sandbox's envVars");
  m["envVars"] = to_json(current);
  m["lastUsed"] = now_iso();
  save_meta();
  touch();
  return json_ok(200, {{"success", true}});
}

HttpResponse Sandbox::files(const std::string& body_text) {
  if (!env_.options.file_api) {
    throw ApiError(ErrorKind::kFilesDisabled,
                   "The File API is disabled for this sandbox (SANDBOX_FILE_API=disabled)",
                   {{"feature", "files"}});
  }
  const FilesRequest request = decode_files_request(body_text);
  const boost::json::object& m = ensure_meta();
  const std::string created_at = m.contains("createdAt") && m.at("createdAt").is_string()
                                     ? std::string(m.at("createdAt").get_string())
                                     : now_iso();
  Workspace& ws = workspace_.get();
  const boost::json::object out = run_files_op(ws, request, created_at, env_.clock.now_ms());
  if (files_op_mutates(request.op)) persist(workspace_.diff(), std::nullopt);
  touch();
  return json_ok(200, out);
}

}  // namespace sandbox

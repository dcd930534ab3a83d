// InterpreterServer: the per-key actors, the routes of §4.4, execute-in-context (§5.3-5.5), the
// resident-instance policy (§7.6), the session rules (§7.7) and idle expiry (§7.10).
#include <sandbox/interpreter.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <set>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <spdlog/spdlog.h>

#include "base/url_codec.h"
#include "base/utf8.h"
#include "base/uuid.h"
#include "interpreter/execute_args.h"
#include "interpreter/session_state.h"
#include "protocol/execute_request.h"
#include "storage/interpreter_store.h"
#include "storage/lease.h"
#include "storage/storage_error.h"

namespace sandbox {
namespace {

HttpResponse json_response(int status, const boost::json::object& o) {
  return HttpResponse::json(status, boost::json::serialize(o));
}

HttpResponse error_http(const InterpreterCallError& e) {
  return HttpResponse::json(e.status, boost::json::serialize(to_json(e.body)));
}

bool is_limit(const SessionOutcome& o) {
  return o.error && o.error->name == kExecutionLimitErrorName;
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
      : engine(e), store(s), clock(c), options(o) {}

  const Engine& engine;
  InterpreterStore& store;
  const Clock& clock;
  InterpreterServerOptions options;

  mutable std::mutex map_mu;
  std::map<std::string, std::shared_ptr<KeyState>, std::less<>> keys;
  std::atomic<std::uint64_t> tick{0};

  // ---- actors ----------------------------------------------------------------------------

  std::shared_ptr<KeyState> state_for(const std::string& key) {
    std::lock_guard lock(map_mu);
    auto& slot = keys[key];
    if (!slot) slot = std::make_shared<KeyState>(clock);
    return slot;
  }

  std::size_t resident_count() const {
    std::lock_guard lock(map_mu);
    std::size_t n = 0;
    for (const auto& [k, s] : keys) {
      // Only an idle key can be inspected safely; a busy one counts as resident.
      if (s->lock.try_lock()) {
        n += s->resident.has_value();
        s->lock.unlock();
      } else {
        ++n;
      }
    }
    return n;
  }

  static void drop_resident(KeyState& state) {
    if (!state.resident) return;
    try {
      state.resident->instance->close();
    } catch (const std::exception& e) {
      spdlog::warn("closing an instance failed: {}", e.what());
    }
    state.resident.reset();
  }

  // Keeps the number of resident instances at or below the cap by evicting the least recently
  // used idle keys other than `self` (whose lock the caller holds). Evicted keys lose their
  // instance and their workspace mirror; both come back on the next call (restore, re-sync).
  void enforce_resident_cap(const KeyState* self) {
    std::lock_guard lock(map_mu);
    std::vector<std::pair<std::uint64_t, std::string>> candidates;
    std::size_t resident = 1;  // self
    for (const auto& [k, s] : keys) {
      if (s.get() == self) continue;
      if (!s->lock.try_lock()) {
        ++resident;  // busy: assume resident, cannot evict now
        continue;
      }
      if (s->resident) {
        ++resident;
        candidates.emplace_back(s->last_used.load(), k);
      }
      s->lock.unlock();
    }
    std::sort(candidates.begin(), candidates.end());
    for (const auto& [t, k] : candidates) {
      if (resident <= options.max_resident_instances) break;
      auto it = keys.find(k);
      if (it == keys.end() || !it->second->lock.try_lock()) continue;
      KeyState& s = *it->second;
      if (s.resident) {
        drop_resident(s);
        s.mirror = std::make_unique<Workspace>(clock);
        --resident;
      }
      s.lock.unlock();
      if (it->second.use_count() == 1) keys.erase(it);  // nobody else refers to it
    }
  }

  // ---- meta and alarm --------------------------------------------------------------------

  void ensure_meta(const std::string& key, KeyState& state) {
    if (state.meta_ensured) return;
    if (!store.get_meta(key)) {
      const std::string now = iso8601_ms(clock.now_ms());
      store.put_meta(key, {{"format", 4},
                           {"key", key},
                           {"build", engine.build},
                           {"createdAt", now},
                           {"lastUsed", now},
                           {"lifetime", random_uuid()}});
    }
    state.meta_ensured = true;
  }

  // §7.10 touch(): returns the armed deadline or nullopt when expiry is disabled.
  std::optional<std::int64_t> touch(const std::string& key, KeyState& state) {
    const std::int64_t ttl = options.idle_ttl_ms;
    if (ttl == 0) {
      const auto armed = state.alarm_cache ? state.alarm_cache : store.get_alarm(key);
      if (armed) store.set_alarm(key, std::nullopt);
      state.alarm_cache.reset();
      return std::nullopt;
    }
    if (!state.alarm_cache) state.alarm_cache = store.get_alarm(key);
    const std::int64_t now = clock.now_ms();
    const std::int64_t want = now + ttl;
    if (!state.alarm_cache || want - *state.alarm_cache > ttl / 10) {
      store.set_alarm(key, want);
      state.alarm_cache = want;
      if (auto meta = store.get_meta(key)) {
        (*meta)["lastUsed"] = iso8601_ms(now);
        store.put_meta(key, *meta);
      }
      if (options.on_alarm_armed) options.on_alarm_armed(want);
      return want;
    }
    return state.alarm_cache;
  }

  void wipe(const std::string& key, KeyState& state) {
    store.wipe(key);
    forget_cached(state);
  }

  void forget_cached(KeyState& state) {
    drop_resident(state);
    state.mirror = std::make_unique<Workspace>(clock);
    state.alarm_cache.reset();
    state.meta_ensured = false;
  }

  // ---- ownership among nodes (storage/lease.h) -----------------------------------------------

  // Takes or renews this node's lease on `key` before acting on it. A new token means another
  // node may have owned the key since this one last acted: whatever is cached about it (resident
  // instance, mirror, alarm, meta) is dropped and comes back from storage. Throws LeaseHeldError
  // while another node holds a live lease (call_error answers 503). Returns the grant.
  LeaseGrant claim(const std::string& key, KeyState& state) {
    const LeaseGrant grant = store.acquire_lease(key);
    if (grant.token != state.lease_token) {
      forget_cached(state);
      state.lease_token = grant.token;
    }
    std::lock_guard lock(deferred_mu);
    deferred.erase(key);
    return grant;
  }

  // Keys whose idle alarm is due but whose lease another node holds: not before (clock ms).
  std::mutex deferred_mu;
  std::map<std::string, std::int64_t, std::less<>> deferred;

  // ---- contexts ----------------------------------------------------------------------------

  std::optional<ContextRow> load_row(const std::string& key, const std::string& id) {
    const auto o = store.get_context(key, id);
    if (!o) return std::nullopt;
    try {
      return parse_context_row(*o);
    } catch (const std::exception& e) {
      throw ApiError(500, "Stored code context '" + id + "' is unreadable: " + e.what(),
                     ErrorCode::kInternalError);
    }
  }

  HttpResponse create_context(const std::string& key, KeyState& state, const std::string& body) {
    const boost::json::object o = parse_json_object(body);
    const auto* id = o.if_contains("id");
    if (!id || !id->is_string() || id->get_string().empty() ||
        utf16_length(id->get_string()) > kMaxContextIdLength) {
      throw ApiError(400, "id must be a non-empty string of at most 128 characters");
    }
    // Neither backend can key a row by it alike (PostgreSQL TEXT refuses NUL).
    if (id->get_string().find('\0') != std::string_view::npos) {
      throw ApiError(400, "id must not contain a NUL character");
    }
    std::string cwd(kWorkspaceRoot);
    if (const auto* c = o.if_contains("cwd")) {
      if (!c->is_string() || c->get_string().empty()) {
        throw ApiError(400, "cwd must be a non-empty string");
      }
      try {
        cwd = normalize_workspace_path(c->get_string()).absolute;
      } catch (const WorkspaceError& e) {
        throw ApiError(400, e.what());
      }
    }
    const std::string context_id(id->get_string());
    const auto existing = store.list_contexts(key);
    if (existing.size() >= kMaxContexts) {
      throw ApiError(400, "Cannot create more than 8 code contexts");
    }
    if (existing.empty() && store.count_keys_with_contexts() >= options.max_keys) {
      throw ApiError(503, "This runtime keeps code contexts for at most " +
                              std::to_string(options.max_keys) + " interpreter keys",
                     ErrorCode::kNoSpace, {{"maxKeys", options.max_keys}});
    }
    for (const auto& row : existing) {
      if (row.id == context_id) {
        throw ApiError(400, "Code context '" + context_id + "' already exists");
      }
    }
    ContextRow row;
    row.id = context_id;
    row.cwd = cwd;
    row.created_at = iso8601_ms(clock.now_ms());
    row.last_used = row.created_at;
    store.put_context(key, row.id, to_json(row));
    touch(key, state);
    return json_response(201, {{"id", row.id}, {"cwd", row.cwd}, {"createdAt", row.created_at}});
  }

  HttpResponse delete_context(const std::string& key, KeyState& state, const std::string& id) {
    if (!store.get_context(key, id)) {
      throw ApiError(404, "Code context '" + id + "' not found", ErrorCode::kContextNotFound,
                     {{"contextId", id}});
    }
    if (state.resident && state.resident->context_id == id) drop_resident(state);
    store.delete_context(key, id);
    touch(key, state);
    return json_response(200, {{"success", true}});
  }

  // ---- execution -----------------------------------------------------------------------------

  // §7.6: reuse, restore, or boot the instance for `row`.
  Resident& ensure_instance(const std::string& key, KeyState& state, ContextRow& row) {
    if (state.resident && state.resident->context_id == row.id &&
        !state.resident->instance->invalid()) {
      return *state.resident;
    }
    drop_resident(state);
    if (!engine.sessions) {
      throw ApiError(500, "This engine has no session support", ErrorCode::kInternalError);
    }
    SessionOptions options;
    options.workspace = state.mirror.get();
    options.cwd = row.cwd;
    KeyState* s = &state;
    options.on_cwd_change = [s](const std::string& cwd) {
      if (s->current_row) s->current_row->cwd = cwd;
    };
    if (row.snapshot && row.snapshot->build == engine.build) {
      state.resident = restore_resident(store, key, engine, row, options);
    } else {
      if (row.snapshot) {  // built by another engine build: discard it and boot fresh
        store.drop_snapshot(key, row.id, std::nullopt);
        row.snapshot.reset();
      }
      Resident fresh;
      fresh.context_id = row.id;
      fresh.instance = engine.sessions->boot(options);
      state.resident = std::move(fresh);
    }
    state.last_used = ++tick;
    enforce_resident_cap(&state);
    return *state.resident;
  }

  // Reconciles the mirror with the caller's manifest (§5.3 steps 8-10). With `pushed` files (the
  // HTTP transport) nothing is pulled and the missing paths are returned; otherwise
  // `get_files` is called at most once and anything still missing is an error.
  std::vector<std::string> reconcile(KeyState& state, const InterpreterExecuteArgs& args,
                                     const std::vector<SyncFile>* pushed,
                                     const GetWorkspaceFiles* get_files) {
    Workspace& mirror = *state.mirror;
    mirror.set_disabled(args.workspace.disabled);
    SyncRequest sync;
    sync.dirs = args.workspace.dirs;
    sync.manifest = args.workspace.manifest;
    if (pushed) sync.files = *pushed;
    std::vector<std::string> missing = mirror.apply_sync(sync);
    if (missing.empty() || pushed) return missing;
    std::vector<WorkspaceFileEntry> pulled = get_files && *get_files ? (*get_files)(missing)
                                                                     : std::vector<WorkspaceFileEntry>{};
    const std::set<std::string> requested(missing.begin(), missing.end());
    sync.files.clear();
    for (auto& entry : pulled) {
      if (!requested.count(entry.path)) {
        throw ApiError(500, "Sandbox returned an invalid workspace file entry",
                       ErrorCode::kInternalError);
      }
      sync.files.push_back(SyncFile{entry.path, std::move(entry.data), entry.updated_at});
    }
    missing = mirror.apply_sync(sync);
    if (!missing.empty()) {
      throw ApiError(500,
                     "Sandbox did not provide " + std::to_string(missing.size()) +
                         " workspace file(s)",
                     ErrorCode::kInternalError);
    }
    return missing;
  }

  // §5.4: one execution under the session rules, then the response of §5.5.
  InterpreterExecuteResponse run(const std::string& key, KeyState& state, ContextRow& row,
                                 const InterpreterExecuteArgs& args) {
    Workspace& mirror = *state.mirror;
    const FileHashes baseline = mirror.file_hashes();
    state.current_row = &row;
    struct ClearRow {
      KeyState& s;
      ~ClearRow() { s.current_row = nullptr; }
    } clear_row{state};

    Resident& resident = ensure_instance(key, state, row);
    const std::vector<WorkspaceRow> before = mirror.serialize();

    SessionOutcome outcome;
    const auto started = std::chrono::steady_clock::now();
    try {
      outcome = resident.instance->execute(ExecutionRequest{args.code, args.env_vars});
    } catch (const std::exception& e) {
      // Rule 1: a throwing execute is a host bug, handled like a trap.
      spdlog::warn("interpreter {}: execute threw: {}", key, e.what());
      static_cast<EngineOutcome&>(outcome) = engine_error_outcome(e);
      outcome.cwd = row.cwd;
      if (state.resident && state.resident->context_id == row.id) state.resident.reset();
    }
    const double duration_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();

    row.executions += 1;
    row.last_used = iso8601_ms(clock.now_ms());
    if (!outcome.cwd.empty()) row.cwd = outcome.cwd;

    InterpreterExecuteResponse response;
    if (outcome.error) {
      mirror.restore_from(before);  // rule 4: roll back, report nothing
    } else {
      const Changes changes = mirror.changes(baseline);
      for (const auto* list : {&changes.created, &changes.updated}) {
        for (const auto& path : *list) {
          auto [data, updated_at] = mirror.read_bytes(path);
          response.files.push_back(WorkspaceFileEntry{path, std::move(data), updated_at});
        }
      }
      response.deleted = changes.deleted;
    }

    // Rule 2: an invalid instance is dropped; the next call restores the last good snapshot.
    if (state.resident && state.resident->context_id == row.id &&
        state.resident->instance->invalid()) {
      drop_resident(state);
    }

    // Rule 3: snapshot a clean live instance; otherwise mark the stored record stale or leave it.
    Resident* live = !is_limit(outcome) && state.resident && state.resident->context_id == row.id
                         ? &*state.resident
                         : nullptr;
    std::optional<double> snapshot_ms;
    bool row_written = false;
    if (live && live->instance->can_snapshot()) {
      try {
        snapshot_ms = write_snapshot(store, key, engine.build, *live, row, clock.now_ms()).elapsed_ms;
        row_written = true;
      } catch (const std::exception& e) {
        // Invariant 4: memory is now ahead of a snapshot we could not write. Drop the instance
        // so the context continues from what is on disk rather than silently diverging.
        spdlog::error("interpreter {}: snapshot of context {} failed: {}", key, row.id, e.what());
        drop_resident(state);
      }
    } else if (live && row.snapshot && !row.snapshot->stale) {
      row.snapshot->stale = true;
    }
    if (!row_written) store.put_context(key, row.id, to_json(row));

    response.result.code = args.code;
    response.result.language = engine.language;
    response.result.engine = engine.engine_name;
    response.result.duration_ms = duration_ms;
    response.result.outcome = std::move(static_cast<EngineOutcome&>(outcome));
    response.execution_count = row.executions;
    response.context.id = row.id;
    response.context.cwd = row.cwd;
    response.context.executions = row.executions;
    response.context.snapshot_ms = snapshot_ms;
    if (row.snapshot) {
      response.context.snapshot = snapshot_info(*row.snapshot);
    }
    response.dirs = mirror.manifest().dirs;
    return response;
  }

  // Shared by both transports: validation, reconcile, run, touch.
  std::variant<InterpreterExecuteResponse, std::vector<std::string>> execute(
      const std::string& key, KeyState& state, const InterpreterExecuteArgs& args,
      const std::vector<SyncFile>* pushed, const GetWorkspaceFiles* get_files) {
    ensure_meta(key, state);
    validate_execute_args(args);
    auto row = load_row(key, args.context_id);
    if (!row) {
      throw ApiError(404, "Code context '" + args.context_id + "' not found",
                     ErrorCode::kContextNotFound, {{"contextId", args.context_id}});
    }
    auto missing = reconcile(state, args, pushed, get_files);
    if (!missing.empty()) return missing;  // HTTP transport: ask for a resync
    auto response = run(key, state, *row, args);
    touch(key, state);
    return response;
  }

  InterpreterCallError call_error(const std::exception& e) {
    if (const auto* held = dynamic_cast<const LeaseHeldError*>(&e)) {
      // Another node owns the key (a load balancer moving keys, or a node that just died and
      // whose lease has not run out): the caller may retry.
      return call_error(ApiError(503,
                                 std::string("Interpreter key unavailable on this node: ") +
                                     held->what() + "; retry later",
                                 ErrorCode::kInternalError));
    }
    const ErrorResponse body = error_response_for(e, clock.now_ms());
    return InterpreterCallError{body.http_status, body};
  }
};

InterpreterServer::InterpreterServer(const Engine& engine, InterpreterStore& store,
                                     const Clock& clock, InterpreterServerOptions options)
    : impl_(std::make_unique<Impl>(engine, store, clock, options)) {}

InterpreterServer::~InterpreterServer() {
  std::lock_guard lock(impl_->map_mu);
  for (auto& [key, state] : impl_->keys) {
    std::lock_guard key_lock(state->lock);
    Impl::drop_resident(*state);
  }
}

const Engine& InterpreterServer::engine() const { return impl_->engine; }

std::size_t InterpreterServer::resident_count() const { return impl_->resident_count(); }

HttpResponse InterpreterServer::handle(const std::string& key, const std::string& method,
                                       const std::string& path, const std::string& body) {
  Impl& d = *impl_;
  try {
    if (!valid_interpreter_key(key)) throw ApiError(400, "Invalid interpreter key");
    auto state = d.state_for(key);
    std::lock_guard lock(state->lock);
    d.claim(key, *state);
    if (method == "DELETE" && path == "/") {
      d.wipe(key, *state);
      return json_response(200, {{"success", true}});
    }
    d.ensure_meta(key, *state);
    if (method == "POST" && path == "/contexts") return d.create_context(key, *state, body);
    constexpr std::string_view kContextsPrefix = "/contexts/";
    if (method == "DELETE" && path.starts_with(kContextsPrefix) &&
        path.size() > kContextsPrefix.size()) {
      return d.delete_context(key, *state, url_decode(path.substr(kContextsPrefix.size())));
    }
    if (method == "POST" && path == "/execute") {
      HttpExecuteArgs parsed = parse_http_execute_args(body);
      auto outcome = d.execute(key, *state, parsed.args, &parsed.files, nullptr);
      if (auto* missing = std::get_if<std::vector<std::string>>(&outcome)) {
        boost::json::array m;
        for (const auto& p : *missing) m.emplace_back(p);
        return json_response(200, {{"resync", true}, {"missing", std::move(m)}});
      }
      return json_response(200, to_json(std::get<InterpreterExecuteResponse>(outcome), true));
    }
    throw ApiError(404, "Not found");
  } catch (const std::exception& e) {
    return error_http(d.call_error(e));
  }
}

InterpreterExecuteResult InterpreterServer::execute_in_context(const std::string& key,
                                                               const InterpreterExecuteArgs& args,
                                                               const GetWorkspaceFiles& get_files) {
  Impl& d = *impl_;
  try {
    if (!valid_interpreter_key(key)) throw ApiError(400, "Invalid interpreter key");
    auto state = d.state_for(key);
    std::lock_guard lock(state->lock);
    d.claim(key, *state);
    auto outcome = d.execute(key, *state, args, nullptr, &get_files);
    return std::get<InterpreterExecuteResponse>(std::move(outcome));
  } catch (const std::exception& e) {
    return d.call_error(e);
  }
}

std::optional<std::int64_t> InterpreterServer::next_alarm() const {
  const auto alarms = impl_->store.list_alarms();
  std::lock_guard lock(impl_->deferred_mu);
  std::optional<std::int64_t> next;
  for (const auto& [key, deadline] : alarms) {
    std::int64_t at = deadline;
    if (const auto it = impl_->deferred.find(key); it != impl_->deferred.end()) {
      at = std::max(at, it->second);
    }
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
    {
      std::lock_guard lock(d.deferred_mu);
      if (const auto it = d.deferred.find(key); it != d.deferred.end() && it->second > now) {
        continue;
      }
    }
    auto state = d.state_for(key);
    std::lock_guard lock(state->lock);
    // Another node's key (several nodes share the database): its owner expires it; this node
    // does only once the owner's lease has run out (the owner died). A lease taken just for
    // the alarm is given back afterwards, so the key's next request may go to any node.
    LeaseGrant grant;
    try {
      grant = d.claim(key, *state);
    } catch (const LeaseHeldError& e) {
      std::lock_guard lock(d.deferred_mu);
      d.deferred[key] = now + std::max<std::int64_t>(e.remaining_ms(), 100);
      continue;
    } catch (const std::exception& e) {
      spdlog::error("interpreter {}: idle expiry failed: {}", key, e.what());
      continue;
    }
    struct GiveBack {
      InterpreterStore& store;
      const std::string& key;
      bool taken;
      ~GiveBack() {
        if (!taken) return;
        try {
          store.release_lease(key);
        } catch (const std::exception& e) {
          spdlog::warn("interpreter {}: releasing the lease failed: {}", key, e.what());
        }
      }
    } give_back{d.store, key, grant.acquired};
    try {
      const auto armed = d.store.get_alarm(key);
      if (!armed || *armed > now) continue;  // re-armed meanwhile
      const auto meta = d.store.get_meta(key);
      const std::int64_t ttl = d.options.idle_ttl_ms;
      if (!meta || ttl == 0) {
        d.store.set_alarm(key, std::nullopt);
        state->alarm_cache.reset();
        continue;
      }
      std::int64_t last_used = 0;
      const auto* lu = meta->if_contains("lastUsed");
      if (!lu || !lu->is_string() || !parse_iso8601_ms(std::string(lu->get_string()), last_used)) {
        last_used = 0;
      }
      const std::int64_t due = last_used + ttl;
      if (due > now) {
        d.store.set_alarm(key, due);  // activity since the last arm pushed it out
        state->alarm_cache = due;
      } else {
        d.wipe(key, *state);
        ++wiped;
      }
    } catch (const std::exception& e) {
      spdlog::error("interpreter {}: idle expiry failed: {}", key, e.what());
    }
  }
  return wiped;
}

}  // namespace sandbox

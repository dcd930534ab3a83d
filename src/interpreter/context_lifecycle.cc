#include "interpreter/context_lifecycle.h"

#include <chrono>
#include <set>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include <sandbox/isolation.h>

#include "base/uuid.h"
#include "interpreter/execute_args.h"
#include "interpreter/resident_cache.h"
#include "storage/interpreter_store.h"

namespace sandbox {
namespace {

bool is_limit(const SessionOutcome& o) {
  return o.error && o.error->name == kExecutionLimitErrorName;
}

}  // namespace

ApiError context_not_found(const std::string& id) {
  return ApiError(ErrorKind::kContextNotFound, "Code context '" + id + "' not found",
                  {{"contextId", id}});
}

ContextLifecycle::ContextLifecycle(const Engine& engine, InterpreterStore& store,
                                   const Clock& clock, ResidentCache& residents,
                                   ContextLifecycleOptions options)
    : engine_(engine),
      store_(store),
      clock_(clock),
      residents_(residents),
      options_(std::move(options)) {}

// ---- Key-level transitions ---------------------------------------------------------------------

void ContextLifecycle::ensure_meta(const std::string& key, KeyState& state) {
  if (state.meta_ensured) return;
  if (!store_.get_meta(key)) {
    const std::string now = iso8601_ms(clock_.now_ms());
    store_.put_meta(key, {{"format", 4},
                          {"key", key},
                          {"build", engine_.build},
                          {"createdAt", now},
                          {"lastUsed", now},
                          {"lifetime", random_uuid()}});
  }
  state.meta_ensured = true;
}

void ContextLifecycle::expect_call(KeyState& state) {
  if (state.resident) state.resident->instance->expect_call();
}

void ContextLifecycle::take_over(KeyState& state, std::int64_t token) {
  if (token == state.lease_token) return;
  forget_cached(state);
  state.lease_token = token;
}

void ContextLifecycle::wipe(const std::string& key, KeyState& state) {
  store_.wipe(key);
  forget_cached(state);
}

void ContextLifecycle::forget_cached(KeyState& state) {
  drop_resident(state);
  state.mirror = std::make_unique<Workspace>(clock_);
  state.alarm_cache.reset();
  state.meta_ensured = false;
}

std::optional<std::int64_t> ContextLifecycle::touch(const std::string& key, KeyState& state) {
  const std::int64_t ttl = options_.idle_ttl_ms;
  if (ttl == 0) {
    const auto armed = state.alarm_cache ? state.alarm_cache : store_.get_alarm(key);
    if (armed) store_.set_alarm(key, std::nullopt);
    state.alarm_cache.reset();
    return std::nullopt;
  }
  if (!state.alarm_cache) state.alarm_cache = store_.get_alarm(key);
  const std::int64_t now = clock_.now_ms();
  const std::int64_t want = now + ttl;
  // Re-arming costs two writes; a deadline within a tenth of the TTL of the wanted one is kept.
  if (!state.alarm_cache || want - *state.alarm_cache > ttl / 10) {
    store_.set_alarm(key, want);
    state.alarm_cache = want;
    if (auto meta = store_.get_meta(key)) {
      (*meta)["lastUsed"] = iso8601_ms(now);
      store_.put_meta(key, *meta);
    }
    if (options_.on_alarm_armed) options_.on_alarm_armed(want);
    return want;
  }
  return state.alarm_cache;
}

bool ContextLifecycle::expire_if_idle(const std::string& key, KeyState& state,
                                      std::int64_t now_ms) {
  const auto armed = store_.get_alarm(key);
  if (!armed || *armed > now_ms) return false;  // re-armed meanwhile
  const auto meta = store_.get_meta(key);
  const std::int64_t ttl = options_.idle_ttl_ms;
  if (!meta || ttl == 0) {
    store_.set_alarm(key, std::nullopt);
    state.alarm_cache.reset();
    return false;
  }
  std::int64_t last_used = 0;
  const auto* lu = meta->if_contains("lastUsed");
  if (!lu || !lu->is_string() || !parse_iso8601_ms(std::string(lu->get_string()), last_used)) {
    last_used = 0;
  }
  const std::int64_t due = last_used + ttl;
  if (due > now_ms) {
    store_.set_alarm(key, due);  // activity since the last arm pushed it out
    state.alarm_cache = due;
    return false;
  }
  wipe(key, state);
  return true;
}

// ---- Context transitions -----------------------------------------------------------------------

ContextRow ContextLifecycle::create_context(const std::string& key, KeyState& state,
                                            const NewContext& request) {
  const auto existing = store_.list_contexts(key);
  if (existing.size() >= kMaxContexts) {
    throw ApiError(ErrorKind::kBadRequest, "Cannot create more than 8 code contexts");
  }
  if (existing.empty() && store_.count_keys_with_contexts() >= options_.max_keys) {
    throw ApiError(ErrorKind::kCapacityReached,
                   "This runtime keeps code contexts for at most " +
                       std::to_string(options_.max_keys) + " interpreter keys",
                   {{"maxKeys", options_.max_keys}});
  }
  for (const auto& row : existing) {
    if (row.id == request.id) {
      throw ApiError(ErrorKind::kBadRequest, "Code context '" + request.id + "' already exists");
    }
  }
  ContextRow row;
  row.id = request.id;
  row.cwd = request.cwd;
  row.created_at = iso8601_ms(clock_.now_ms());
  row.last_used = row.created_at;
  store_.put_context(key, row.id, to_json(row));
  touch(key, state);
  return row;
}

void ContextLifecycle::delete_context(const std::string& key, KeyState& state,
                                      const std::string& id) {
  if (!store_.get_context(key, id)) throw context_not_found(id);
  if (state.resident && state.resident->context_id == id) drop_resident(state);
  store_.delete_context(key, id);
  touch(key, state);
}

ContextExecuteOutcome ContextLifecycle::execute(const std::string& key, KeyState& state,
                                                const InterpreterExecuteArgs& args,
                                                const std::vector<SyncFile>* pushed,
                                                const GetWorkspaceFiles* get_files) {
  ensure_meta(key, state);
  validate_execute_args(args);
  auto row = load_row(key, args.context_id);
  if (!row) throw context_not_found(args.context_id);
  try {
    auto missing = reconcile(state, args, pushed, get_files);
    if (!missing.empty()) return missing;  // HTTP transport: ask for a resync (no touch, CL13)
    auto response = run(key, state, *row, args);
    touch(key, state);
    return response;
  } catch (...) {
    // W6: what the request brought does not outlive it (the caller forgets its record, H5).
    state.mirror->restore_from({});
    throw;
  }
}

// ---- Steps of execute() ------------------------------------------------------------------------

std::optional<ContextRow> ContextLifecycle::load_row(const std::string& key,
                                                     const std::string& id) {
  const auto o = store_.get_context(key, id);
  if (!o) return std::nullopt;
  try {
    return parse_context_row(*o);
  } catch (const std::exception& e) {
    throw ApiError(ErrorKind::kInternal,
                   "Stored code context '" + id + "' is unreadable: " + e.what());
  }
}

std::vector<std::string> ContextLifecycle::reconcile(KeyState& state,
                                                     const InterpreterExecuteArgs& args,
                                                     const std::vector<SyncFile>* pushed,
                                                     const GetWorkspaceFiles* get_files) {
  Workspace& mirror = *state.mirror;
  // W1: before any instance exists, since guest file access reads the flag at call time.
  mirror.set_disabled(args.workspace.disabled);
  SyncRequest sync;
  sync.dirs = args.workspace.dirs;
  sync.manifest = args.workspace.manifest;
  if (pushed) sync.files = *pushed;
  std::vector<std::string> missing = mirror.apply_sync(sync);
  if (!missing.empty() && pushed) {
    // W6, H3: a resync answer keeps nothing of this request. The mirror is emptied, so the
    // answer asks for every manifest file the request did not carry, and the caller's second
    // request brings the whole workspace.
    mirror.restore_from({});
    missing = mirror.apply_sync(sync);
    mirror.restore_from({});
    return missing;
  }
  if (missing.empty() || pushed) return missing;
  std::vector<WorkspaceFileEntry> pulled =
      get_files && *get_files ? (*get_files)(missing) : std::vector<WorkspaceFileEntry>{};
  const std::set<std::string> requested(missing.begin(), missing.end());
  sync.files.clear();
  for (auto& entry : pulled) {
    if (!requested.count(entry.path)) {
      throw ApiError(ErrorKind::kInternal, "Sandbox returned an invalid workspace file entry");
    }
    sync.files.push_back(SyncFile{entry.path, std::move(entry.data), entry.updated_at});
  }
  missing = mirror.apply_sync(sync);
  if (!missing.empty()) {
    throw ApiError(ErrorKind::kInternal, "Sandbox did not provide " +
                                             std::to_string(missing.size()) + " workspace file(s)");
  }
  return missing;
}

InterpreterExecuteResponse ContextLifecycle::run(const std::string& key, KeyState& state,
                                                 ContextRow& row,
                                                 const InterpreterExecuteArgs& args) {
  // Counted when the round ends: "failed" unless it got as far as an outcome.
  struct CountRound {
    const EngineMetrics& metrics;
    EngineMetrics::Outcome outcome = EngineMetrics::Outcome::kFailed;
    ~CountRound() { metrics.count(EngineMetrics::Kind::kContext, outcome); }
  } count_round{options_.metrics};
  Workspace& mirror = *state.mirror;
  const FileHashes baseline = mirror.file_hashes();  // S1
  // The instance's cwd-change callback writes into the row of the round in progress.
  state.current_row = &row;
  struct ClearRow {
    KeyState& s;
    ~ClearRow() { s.current_row = nullptr; }
  } clear_row{state};

  Resident& resident = make_live(key, state, row);              // S2
  const std::vector<WorkspaceRow> before = mirror.serialize();  // S3

  SessionOutcome outcome;
  const auto started = std::chrono::steady_clock::now();
  try {
    outcome =
        resident.instance->execute(ExecutionRequest{args.code, args.env_vars, args.on_output});
  } catch (const WorkerLostError& e) {
    // The worker process died mid-call (docs/contexts.md#worker-loss): nothing of this round is
    // counted or stored, and the context restores from its last snapshot next time.
    spdlog::warn("interpreter {}: {}", key, e.what());
    if (state.resident && state.resident->context_id == row.id) state.resident.reset();
    throw;
  } catch (const std::exception& e) {
    // S4, CL6: a throwing execute is a host bug, answered like a trap.
    spdlog::warn("interpreter {}: execute threw: {}", key, e.what());
    static_cast<EngineOutcome&>(outcome) = engine_error_outcome(e);
    outcome.cwd = row.cwd;
    if (state.resident && state.resident->context_id == row.id) state.resident.reset();
  }
  const double duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();

  row.executions += 1;  // S5
  row.last_used = iso8601_ms(clock_.now_ms());
  if (!outcome.cwd.empty()) row.cwd = outcome.cwd;

  InterpreterExecuteResponse response;
  if (outcome.error) {
    mirror.restore_from(before);  // S6, CL5: roll back, report nothing
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

  drop_if_invalid(state, row);  // S7
  const std::optional<double> snapshot_ms =
      settle_snapshot(key, state, row, is_limit(outcome));  // S8, S9
  options_.metrics.step_ms(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
          .count());
  count_round.outcome = EngineMetrics::outcome_of(outcome);

  response.result.code = args.code;
  response.result.language = engine_.language;
  response.result.engine = engine_.engine_name;
  response.result.duration_ms = duration_ms;
  response.result.outcome = std::move(static_cast<EngineOutcome&>(outcome));
  response.execution_count = row.executions;
  response.context.id = row.id;
  response.context.cwd = row.cwd;
  response.context.executions = row.executions;
  response.context.snapshot_ms = snapshot_ms;
  if (row.snapshot) response.context.snapshot = snapshot_info(*row.snapshot);
  response.dirs = mirror.manifest().dirs;
  return response;
}

Resident& ContextLifecycle::make_live(const std::string& key, KeyState& state, ContextRow& row) {
  if (state.resident && state.resident->context_id == row.id &&
      !state.resident->instance->invalid()) {
    return *state.resident;  // R1, CL3
  }
  drop_resident(state);                               // R2, CL2
  if (!engine_.sessions) throw no_session_support();  // R3
  if (row.snapshot && row.snapshot->build == engine_.build) {
    const auto started = std::chrono::steady_clock::now();
    state.resident = restore_instance(key, state, row);  // R4
    options_.metrics.restore_ms(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count());
  } else {
    if (row.snapshot) discard_foreign_snapshot(key, row);  // R5
    state.resident = boot_instance(state, row);            // R6
  }
  residents_.note_used(state);  // R7
  residents_.enforce_cap(&state);
  return *state.resident;
}

SessionOptions ContextLifecycle::session_options(KeyState& state, const ContextRow& row) {
  SessionOptions options;
  options.workspace = state.mirror.get();
  options.cwd = row.cwd;
  KeyState* s = &state;
  options.on_cwd_change = [s](const std::string& cwd) {
    if (s->current_row) s->current_row->cwd = cwd;
  };
  return options;
}

Resident ContextLifecycle::restore_instance(const std::string& key, KeyState& state,
                                            const ContextRow& row) {
  const auto base = snapshot_base();
  return restore_resident(store_, key, engine_, base.get(), row, session_options(state, row));
}

Resident ContextLifecycle::boot_instance(KeyState& state, const ContextRow& row) {
  if (!engine_.sessions) throw no_session_support();  // as R3
  Resident fresh;
  fresh.context_id = row.id;
  fresh.instance = engine_.sessions->boot(session_options(state, row));
  start_from_base(fresh, snapshot_base().get());
  return fresh;
}

std::shared_ptr<const SnapshotBase> ContextLifecycle::snapshot_base() const {
  if (!engine_.sessions || !engine_.sessions->base) return nullptr;
  return engine_.sessions->base();
}

void ContextLifecycle::discard_foreign_snapshot(const std::string& key, ContextRow& row) {
  store_.drop_snapshot(key, row.id, std::nullopt);
  row.snapshot.reset();
}

bool ContextLifecycle::drop_if_invalid(KeyState& state, const ContextRow& row) {
  if (!state.resident || state.resident->context_id != row.id ||
      !state.resident->instance->invalid()) {
    return false;
  }
  drop_resident(state);
  return true;
}

std::optional<double> ContextLifecycle::settle_snapshot(const std::string& key, KeyState& state,
                                                        ContextRow& row, bool limited) {
  // CL7: after a limit round there is no live instance to store, whatever the resident.
  Resident* live = !limited && state.resident && state.resident->context_id == row.id
                       ? &*state.resident
                       : nullptr;
  std::optional<double> snapshot_ms;
  try {
    if (live && live->instance->can_snapshot()) {
      // CL9: chunks and row in one transaction.
      const auto base = snapshot_base();
      const SnapshotWriteResult written =
          write_snapshot(store_, key, engine_.build, base.get(), *live, row, clock_.now_ms());
      snapshot_ms = written.elapsed_ms;
      options_.metrics.snapshot_bytes_written(written.bytes_written);
      return snapshot_ms;
    }
    if (live) mark_stale(row);
    store_.put_context(key, row.id, to_json(row));  // CL9
  } catch (const std::exception& e) {
    // CL6: the round could not be stored, so it is not acknowledged: the request fails (a
    // storage failure is a retryable 500, a lost worker a 503) and the row stays as it was.
    // The instance is dropped, since its memory is ahead of what is stored: the next round
    // restores the last stored snapshot instead of continuing a round nobody was told of.
    spdlog::error("interpreter {}: storing the round of context {} failed: {}", key, row.id,
                  e.what());
    if (state.resident && state.resident->context_id == row.id) drop_resident(state);
    throw;
  }
  return snapshot_ms;
}

void ContextLifecycle::mark_stale(ContextRow& row) {
  if (row.snapshot && !row.snapshot->stale) row.snapshot->stale = true;
}

}  // namespace sandbox

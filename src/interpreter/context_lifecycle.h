// ContextLifecycle: the state machine of an interpreter key's code contexts, without HTTP. The
// routes (interpreter_server.cc) decode a request, call one of these functions and encode what
// it returns; the same functions serve the in-process execute_in_context and idle expiry.
// The rules are written out, with the same numbers, in docs/contexts.md.
//
// One context, three things that move together: its row in the store, its stored snapshot
// record, and the key's resident instance (at most one per key, CL2). Functions named at each
// transition:
//
//                         create_context
//   [no row] ------------------------------------------> [row, record null, no instance]
//      ^                                                             |
//      |  delete_context (any state) / wipe / expire_if_idle         | make_live:
//      +-------------------------------------------------------------+  restore_instance (record
//                                                                    |  of this build), else
//                                                                    |  discard_foreign_snapshot
//                                                                    v  + boot_instance
//          +------ drop_resident: invalid() / execute threw ---- [resident] <----+
//          |       (drop_if_invalid, run) / storing the round failed   |          |
//          |       (settle_snapshot) / another context of the key     | run:     | reuse (not
//          |       made live (make_live) / evict (ResidentCache) /    | execute  | invalid, same
//          v       take_over / wipe                                   |          | context)
//   [no instance] -- make_live --> [resident]                         +----------+
//
//   Stored record, moved only by settle_snapshot (after a round that leaves the instance live):
//     [null] --write_snapshot--> [fresh] --mark_stale (cannot snapshot: open guest fd)--> [stale]
//     [stale] --write_snapshot--> [fresh]; discard_foreign_snapshot: any --> [null];
//     limit rounds and rounds that dropped the instance leave it as it was (CL7, CL6).
//
// Invariants, written out once in docs/contexts.md#invariants (ids stable; the comments below
// cite them). Index:
//  CL1  One call at a time per key                  docs/contexts.md#cl1
//  CL2  At most one resident per key                docs/contexts.md#cl2
//  CL3  Reuse only what is whole                    docs/contexts.md#cl3
//  CL4  A record is restored only by its own build  docs/contexts.md#cl4
//  CL5  Errors roll the workspace back              docs/contexts.md#cl5
//  CL6  Failures drop the instance                  docs/contexts.md#cl6
//  CL7  Limit rounds are never stored               docs/contexts.md#cl7
//  CL8  Snapshot or stale                           docs/contexts.md#cl8
//  CL9  Atomic writes, a row every answered round   docs/contexts.md#cl9
//  CL10 A cap on live instances                     docs/contexts.md#cl10
//  CL11 A take-over forgets                         docs/contexts.md#cl11
//  CL12 A wipe removes everything                   docs/contexts.md#cl12
//  CL13 Touch only after an answer                  docs/contexts.md#cl13
//  CL14 Chunks are compressed, the codec recorded   docs/contexts.md#cl14
//
// Errors: the functions throw ApiError (the status the routes answer with), WorkspaceError
// (reconcile) and StorageError (the store); the server turns them into an ErrorResponse. A
// guest's failure is not an error: it comes back in the response's outcome.
//
// Thread-safety: a ContextLifecycle is shared by all keys; its own members are immutable after
// construction, so calls on different keys run in parallel. Every function taking a KeyState
// requires that key's lock (`KeyState::lock`) to be held by the caller (CL1).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <sandbox/clock.h>
#include <sandbox/engine.h>
#include <sandbox/errors.h>
#include <sandbox/interpreter.h>

#include "interpreter/engine_metrics.h"
#include "interpreter/session_state.h"
#include "protocol/context_row.h"

namespace sandbox {

// 404 CONTEXT_NOT_FOUND "Code context '<id>' not found", context {contextId}.
[[nodiscard]] ApiError context_not_found(const std::string& id);

class InterpreterStore;
class ResidentCache;

// The InterpreterServerOptions the state machine reads.
struct ContextLifecycleOptions {
  std::int64_t idle_ttl_ms = kDefaultIdleTtlMs;  // 0: no idle expiry
  std::size_t max_keys = kMaxInterpreterKeys;    // keys holding contexts in the store
  std::function<void(std::int64_t deadline_ms)> on_alarm_armed;  // may be empty
  // Context executions, step and restore times, snapshot bytes (no-ops when made without a
  // registry).
  EngineMetrics metrics;
};

// A create request whose fields the route already checked (id, cwd normalized).
struct NewContext {
  std::string id;
  std::string cwd = std::string(kWorkspaceRoot);
};

// What execute() yields: the response, or (HTTP transport) the paths the caller must push first.
using ContextExecuteOutcome = std::variant<InterpreterExecuteResponse, std::vector<std::string>>;

class ContextLifecycle {
 public:
  // Borrows everything; each must outlive this object.
  ContextLifecycle(const Engine& engine, InterpreterStore& store, const Clock& clock,
                   ResidentCache& residents, ContextLifecycleOptions options);

  // ---- Key-level transitions ------------------------------------------------------------------

  // Creates the key's meta row if the store has none (first call on the key that is not a wipe).
  void ensure_meta(const std::string& key, KeyState& state);
  // Tells the key's resident instance, if it has one, that a call is likely to follow
  // (SessionInstance::expect_call), before the lease and the context's row are read: an instance
  // in a worker process wakes it meanwhile (docs/security.md#calls-announced).
  void expect_call(KeyState& state);
  // CL11: `token` is this node's current lease token on the key; a different one than the
  // actor last saw drops the resident, the mirror, the cached alarm and the meta flag.
  void take_over(KeyState& state, std::int64_t token);
  // CL12: deletes everything stored for the key and forgets everything cached.
  void wipe(const std::string& key, KeyState& state);
  // CL13 (docs/protocol.md#idle-expiry T1-T5): arms or moves the idle alarm. Returns the armed
  // deadline, nullopt when expiry is off.
  std::optional<std::int64_t> touch(const std::string& key, KeyState& state);
  // docs/protocol.md#idle-expiry T6: the alarm handler of one key at `now_ms`. Wipes the key if
  // it has been idle for the TTL and returns true; otherwise re-arms or clears its alarm.
  bool expire_if_idle(const std::string& key, KeyState& state, std::int64_t now_ms);

  // ---- Context transitions --------------------------------------------------------------------

  // docs/protocol.md#create-a-context C4-C8: [no row] -> [row, record null]. Throws ApiError 400
  // past kMaxContexts or for a duplicate id, 503 NO_SPACE past options.max_keys.
  ContextRow create_context(const std::string& key, KeyState& state, const NewContext& request);
  // docs/protocol.md#delete-a-context L2-L5: closes the context's resident, deletes its chunks
  // and row. Throws ApiError 404 CONTEXT_NOT_FOUND when there is no such row.
  void delete_context(const std::string& key, KeyState& state, const std::string& id);
  // One execution in a context: argument checks, workspace reconcile, run, touch. With `pushed`
  // files (the HTTP transport) nothing is pulled and missing paths are returned instead of
  // running; otherwise `get_files` is called at most once.
  ContextExecuteOutcome execute(const std::string& key, KeyState& state,
                                const InterpreterExecuteArgs& args,
                                const std::vector<SyncFile>* pushed,
                                const GetWorkspaceFiles* get_files);

  // ---- Steps of execute(), one transition each (public so each can be tested alone) ----------

  // The stored row of context `id`, nullopt when there is none. Throws ApiError 500 when the
  // row does not parse.
  std::optional<ContextRow> load_row(const std::string& key, const std::string& id);
  // docs/protocol.md#workspace-pull W1-W4: brings the mirror to the caller's manifest. Returns
  // the paths still missing (only with `pushed`); throws ApiError 500 for a bad pull answer.
  std::vector<std::string> reconcile(KeyState& state, const InterpreterExecuteArgs& args,
                                     const std::vector<SyncFile>* pushed,
                                     const GetWorkspaceFiles* get_files);
  // docs/protocol.md#session-rules S1-S9: one round in `row`'s context, the row written back.
  InterpreterExecuteResponse run(const std::string& key, KeyState& state, ContextRow& row,
                                 const InterpreterExecuteArgs& args);
  // docs/protocol.md#resident-instance R1-R7 (CL2-CL4): reuses, restores or boots the instance
  // of `row` and makes it the key's resident; may evict other keys (CL10). `row.snapshot` is
  // reset when a foreign build's record is discarded.
  Resident& make_live(const std::string& key, KeyState& state, ContextRow& row);
  // [no instance] -> [resident] from `row`'s record (CL4: of this engine build).
  Resident restore_instance(const std::string& key, KeyState& state, const ContextRow& row);
  // [no instance] -> [resident] from nothing.
  Resident boot_instance(KeyState& state, const ContextRow& row);
  // The engine's image as the base of delta snapshots (docs/snapshot-format.md#delta-encoding),
  // or null when the engine offers none.
  std::shared_ptr<const SnapshotBase> snapshot_base() const;
  // CL4: record of another build -> [null]; its chunks are deleted now, the row at round end.
  void discard_foreign_snapshot(const std::string& key, ContextRow& row);
  // CL6: drops the resident if it belongs to `row` and reports invalid(). Returns whether it did.
  bool drop_if_invalid(KeyState& state, const ContextRow& row);
  // CL7-CL9: after a round, stores a snapshot of the live instance, or marks the record stale,
  // or leaves it; then writes the row. Returns the snapshot's duration when one was written.
  // CL6: when storing fails it drops the resident and rethrows; the round is not answered.
  std::optional<double> settle_snapshot(const std::string& key, KeyState& state, ContextRow& row,
                                        bool limited);
  // CL8: the record (if any, not yet stale) becomes stale: memory is ahead of disk.
  static void mark_stale(ContextRow& row);

 private:
  // Drops the resident, the mirror, the alarm cache and the meta flag (take-over and wipe).
  void forget_cached(KeyState& state);
  SessionOptions session_options(KeyState& state, const ContextRow& row);

  const Engine& engine_;
  InterpreterStore& store_;
  const Clock& clock_;
  ResidentCache& residents_;
  const ContextLifecycleOptions options_;
};

}  // namespace sandbox

// InterpreterServer: durable code contexts for one engine (docs/protocol.md#interpreter-server;
// the lifecycle of a context and its invariants CL1-CL14 are in docs/contexts.md). It is the
// runtime-side owner of every interpreter key: per key, a set of at most 8 code contexts (rows in
// storage), an in-memory mirror of the caller's /workspace, and at most one resident session
// instance, whose linear memory is snapshotted to storage after each clean execution and restored
// from there after an eviction or a restart.
//
// Concurrency: calls on one key (HTTP routes, execute_in_context, idle expiry) run one at a time
// in arrival order; calls on different keys run in parallel on their callers' threads. A global
// cap bounds the number of resident instances across all keys: the least recently used idle key
// loses its instance (and its workspace mirror) and later restores from its snapshot.
//
// Lifecycle of a context's instance, in short (the diagram, with the function of each
// transition, is in docs/contexts.md#lifecycle and src/interpreter/context_lifecycle.h):
// [none] --boot or restore--> [resident] --clean round--> snapshot written (record fresh);
// [resident] --invalid() / execute threw / storing the round failed / evicted / another context of
// the key ran / deleted--> [none]. The stored record goes [null] -> [fresh] -> [stale] (a round
// that could not snapshot) -> [fresh]; a build mismatch resets it to [null]; limit rounds and
// dropped instances leave it untouched.
//
// The rules of a context's state, written out once in docs/contexts.md#invariants (the ids are
// stable; code and tests cite them). Index:
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
// Several nodes over one shared store (PostgreSQL; src/storage/lease.h): before acting on a key
// the server takes or renews this node's lease on it; a key another node holds answers 503, and
// a key taken over from another node drops its resident instance and mirror and continues from
// storage. With a store without ownership (or SQLite on one machine) nothing changes.
//
// Thread-safety: all public methods may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <sandbox/clock.h>
#include <sandbox/engine.h>
#include <sandbox/http.h>
#include <sandbox/protocol.h>

namespace sandbox {

class MetricsRegistry;  // <sandbox/metrics.h>

// The shape of the caller's /workspace: no contents, only the directory list and file hashes.
struct WorkspaceManifestArgs {
  std::vector<std::string> dirs;
  FileHashes manifest;
  bool disabled = false;  // the caller's File API is off: every guest file access is EACCES
};

struct InterpreterExecuteArgs {
  std::string context_id;
  std::string code;
  std::map<std::string, std::string> env_vars;
  WorkspaceManifestArgs workspace;
  // Optional: sees the guest's output while it runs (engine.h's OutputObserver; streaming,
  // docs/protocol.md#streaming-output). Not part of the wire request: the HTTP transport asks
  // for an event stream instead (Accept: text/event-stream).
  OutputObserver on_output = {};
};

// One file the caller hands over (raw bytes).
struct WorkspaceFileEntry {
  std::string path;
  std::vector<std::uint8_t> data;
  std::int64_t updated_at = 0;
};

// Answers a pull for `paths` with the entries the caller has (unknown paths omitted). Called at
// most once per execution, on the executing thread.
using GetWorkspaceFiles =
    std::function<std::vector<WorkspaceFileEntry>(const std::vector<std::string>& paths)>;

// Older name of SnapshotInfo (protocol.h), kept while callers move over.
using SnapshotSummary = SnapshotInfo;

struct ContextSummary {
  std::string id;
  std::string cwd;
  std::uint64_t executions = 0;
  std::optional<double> snapshot_ms;
  std::optional<SnapshotInfo> snapshot;
};

// InterpreterExecuteResponse (docs/protocol.md#execute-response).
struct InterpreterExecuteResponse {
  ExecutionResult result;  // durationMs: wall time of the engine call
  std::uint64_t execution_count = 0;
  ContextSummary context;
  std::vector<std::string> dirs;          // every mirror directory after the run, sorted
  std::vector<WorkspaceFileEntry> files;  // created then updated files (none after an error)
  std::vector<std::string> deleted;       // file paths gone since reconciliation
};

// A failed call: the status and ErrorResponse the equivalent HTTP error would carry.
struct InterpreterCallError {
  int status = 500;
  ErrorResponse body;
};

using InterpreterExecuteResult = std::variant<InterpreterExecuteResponse, InterpreterCallError>;

// The response as JSON. `base64_files`: file data as base64 strings (the HTTP transport) rather
// than arrays of bytes.
boost::json::object to_json(const InterpreterExecuteResponse& r, bool base64_files = true);

struct InterpreterServerOptions {
  // INTERPRETER_IDLE_TTL_MS: an idle key is wiped after it (0 disables expiry).
  std::int64_t idle_ttl_ms = kDefaultIdleTtlMs;
  // Resident instances across all keys.
  std::size_t max_resident_instances = 16;
  // Called with the deadline (clock ms) each time a key's idle alarm is armed or moved, on the
  // thread that armed it, after the alarm is stored. The runtime's expiry thread uses it to
  // wake when a deadline earlier than the one it sleeps toward appears. Must be cheap and must
  // not call back into the server. May be empty.
  std::function<void(std::int64_t deadline_ms)> on_alarm_armed;
  // Keys holding code contexts in the store (kMaxInterpreterKeys); a key's first context past
  // it answers 503 NO_SPACE.
  std::size_t max_keys = kMaxInterpreterKeys;
  // Where the server reports its contexts (docs/sandbox-api.md#metrics: context executions,
  // step and restore times, snapshot bytes written, resident contexts, interpreter-key lease
  // take-overs, labelled with the engine's language); null: nowhere. Borrowed: must outlive the
  // server.
  MetricsRegistry* metrics = nullptr;
};

// Parses INTERPRETER_IDLE_TTL_MS (docs/protocol.md#idle-expiry T0): unset/empty/invalid/negative
// -> 24 h; a finite number >= 0 (fractions allowed, rounded down) otherwise.
std::int64_t parse_idle_ttl(const char* value);

class InterpreterServer {
 public:
  // The server's state (its engine, store, clock, keys), defined in src/interpreter/ and
  // incomplete here. A kit user gets a server from its runtime (InterpreterRuntime::interpreter(),
  // runtime.h); this tree builds one over a store with make_interpreter_server
  // (src/interpreter/over_store.h), since the store types are not part of the kit.
  struct Impl;
  // Takes the non-null `impl` that make_interpreter_server builds.
  explicit InterpreterServer(std::unique_ptr<Impl> impl);
  ~InterpreterServer();
  InterpreterServer(const InterpreterServer&) = delete;
  InterpreterServer& operator=(const InterpreterServer&) = delete;

  // The routes of docs/protocol.md#interpreter-routes for `key` (`path` is the remainder after
  // /interpreters/:key, "/" when empty; `body` is the raw request body). Also serves POST
  // /execute, the HTTP transport of an execution with the resync handshake
  // (docs/protocol.md#resync-handshake). Always returns a response (never throws). `on_output`
  // (optional) sees the guest's output of a POST /execute while it runs (engine.h).
  HttpResponse handle(const std::string& key, const std::string& method, const std::string& path,
                      const std::string& body, const OutputObserver& on_output = {});

  // Execute in a context with the pull callback (docs/protocol.md#execute-in-context).
  [[nodiscard]] InterpreterExecuteResult execute_in_context(const std::string& key,
                                                            const InterpreterExecuteArgs& args,
                                                            const GetWorkspaceFiles& get_files);

  // Runs the idle-expiry handler (docs/protocol.md#idle-expiry T6) of every key whose deadline
  // has passed by the clock. Returns how many keys were wiped. The runtime calls this from a timer;
  // tests call it after moving a ManualClock.
  int run_due_alarms();
  // The earliest armed deadline, if any (epoch ms).
  std::optional<std::int64_t> next_alarm() const;

  // How many keys have a resident instance now.
  std::size_t resident_count() const;
  // How many keys this server keeps in memory now: a key is kept while it has a resident
  // instance or a request uses it; a request that creates no context creates no key state.
  std::size_t key_count() const;

  const Engine& engine() const;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace sandbox

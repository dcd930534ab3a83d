// Sandbox: the caller-side actor for one sandbox id (docs/sandbox-api.md#overview, upstream's
// `Sandbox` Durable Object). It owns, in the SandboxStore:
//
//   meta      {format: 1, id, createdAt, lastUsed, envVars, lifetime}   created on first use
//   files     the /workspace tree (the source of truth), loaded lazily, persisted by diff
//   contexts  the code-context registry (at most 8), oldest first
//   alarm     the idle-expiry deadline (SANDBOX_IDLE_TTL_MS, docs/protocol.md#idle-expiry)
//
// and answers the routes of docs/sandbox-api.md#routes (paths relative to /sandboxes/{id}):
//
//   GET /                 SandboxInfo                   DELETE /   wipe everything
//   POST /execute         in a context, the binding's default context, or stateless
//   POST /contexts        create (probe, runtime POST /interpreters/:key/contexts, register)
//   GET /contexts         list          DELETE /contexts/:id   delete (best effort remotely)
//   POST /env             set/unset sandbox env vars
//   POST /files           the files API (docs/sandbox-api.md#files-api)
//
// Executions go through the bindings (binding.h) with the interpreter key of interpreter_key.h.
// After an execution the workspace diff the runtime reports is applied to the tree and written
// together with the context row in one transaction (docs/sandbox-api.md#execute, SX7). A failed
// write discards the in-memory tree, so the next call reloads the last committed state.
//
// Several nodes over one database: every route and the alarm first take or renew this node's
// lease on the id (storage/lease.h); another node's live lease answers 503, and the store refuses
// writes under a lease this node lost.
//
// Thread-safety: none. SandboxService runs one call per sandbox id at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <boost/json/object.hpp>

#include <sandbox/clock.h>
#include <sandbox/http.h>
#include <sandbox/metrics.h>
#include <sandbox/protocol.h>

#include "protocol/context_record.h"
#include "sandbox/binding.h"
#include "sandbox/persisted_workspace.h"
#include "storage/sandbox_store.h"

namespace sandbox {

struct SandboxOptions {
  // SANDBOX_IDLE_TTL_MS: a sandbox idle this long is wiped (0 disables expiry).
  std::int64_t idle_ttl_ms = 86'400'000;
  // SANDBOX_FILE_API != "disabled": when false the files table is never read or written, the
  // files API answers 403 NOT_SUPPORTED and guests see no /workspace.
  bool file_api = true;
  // sandboxd --max-sandboxes: the most sandboxes the store keeps (kMaxSandboxes); a request that
  // would create one more answers 503 NO_SPACE.
  std::size_t max_sandboxes = kMaxSandboxes;
};

// What every Sandbox of a server shares. All borrowed; they must outlive the sandboxes.
struct SandboxEnvironment {
  SandboxStore& store;
  const Clock& clock;
  const BindingSet& bindings;
  SandboxOptions options;
  // docs/sandbox-api.md#metrics; null: not counted.
  Counter* workspace_bytes_written = nullptr;  // file bytes each persist wrote
  Counter* lease_takeovers = nullptr;          // LeaseGrant::taken_over in claim()
};

class Sandbox {
 public:
  // `id` must already be valid (validate_sandbox_id).
  Sandbox(std::string id, const SandboxEnvironment& env);

  // One route; `path` is the rest after /sandboxes/{id} ("/" when empty, no query). Always
  // returns a response: validation errors, workspace errors, relayed runtime answers, storage
  // failures (500 INTERNAL_ERROR) included. `on_output` (optional) sees the output of a POST
  // /execute while the guest runs (SandboxService::handle).
  HttpResponse handle(const std::string& method, const std::string& path, const std::string& body,
                      const OutputObserver& on_output = {});

  // The idle alarm's handler (docs/protocol.md#idle-expiry, T6): re-arms when activity moved the
  // deadline, otherwise destroys the sandbox (as DELETE /). Returns true when it destroyed it.
  // Throws LeaseHeldError (and does nothing) while another node owns the sandbox id; a lease it had
  // to take for the alarm is given back afterwards.
  bool run_alarm();

 private:
  HttpResponse info();
  HttpResponse destroy();
  HttpResponse execute(const std::string& body, const OutputObserver& on_output);
  HttpResponse create_context(const std::string& body);
  HttpResponse list_contexts();
  HttpResponse delete_context(const std::string& context_id);
  HttpResponse set_env(const std::string& body);
  HttpResponse files(const std::string& body);

  // The stateless fallback for a binding that reports contexts: false (docs/sandbox-api.md#execute,
  // SX2).
  HttpResponse execute_stateless(Binding& binding, const std::string& code,
                                 const EnvPatch& call_env, const OutputObserver& on_output);
  // Registers a new context (docs/sandbox-api.md#contexts, CX4, CX6, CX7) after the probe.
  ContextRecord register_context(Binding& binding, const RuntimeProbe& probe,
                                 const std::string& cwd, const EnvVars& env_vars);
  Binding& binding_named(const std::string& name) const;
  std::string key_for(const std::string& binding);

  // The meta row, or nullopt before the first use.
  std::optional<boost::json::object>& meta();
  boost::json::object& ensure_meta();
  void save_meta();
  // touch() (docs/protocol.md#idle-expiry): returns the armed deadline (expiresAt), or nullopt when
  // expiry is off.
  std::optional<std::int64_t> touch();
  void wipe();

  std::string now_iso() const;

  // Takes or renews this node's lease on the id (storage/lease.h) before acting; a new token
  // drops everything cached (another node may have changed the sandbox). Throws LeaseHeldError.
  LeaseGrant claim();
  // Forgets the cached meta, alarm and tree; the next use reloads them from the store.
  void forget_cached();
  // Writes `diff` (and `context`) to the store, then makes the tree the persisted baseline; a
  // failed write discards the tree and rethrows.
  void persist(const WorkspacePersist& diff, const std::optional<StoredRow>& context);

  std::string id_;
  const SandboxEnvironment& env_;
  bool meta_loaded_ = false;
  std::optional<boost::json::object> meta_;
  bool alarm_known_ = false;
  std::optional<std::int64_t> alarm_;
  PersistedWorkspace workspace_;
  std::int64_t lease_token_ = 0;  // of the lease this actor last acted under (0: no ownership)
};

}  // namespace sandbox

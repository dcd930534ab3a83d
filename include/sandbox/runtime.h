// The runtime server kit: define_interpreter_runtime(engine) turns an Engine into a server that
// speaks the sandbox-workers runtime protocol (docs/protocol.md#runtime-routes):
//
//   GET  /interpreter          {language, engine, contexts, protocol: 1}
//   POST /execute              stateless execution -> 200 ExecutionResult (or an ErrorResponse)
//   /interpreters/:key/...     code contexts (400 for an engine without sessions)
//
// The runtime is an HttpHandler, so it can be served on its own (serve()) or mounted inside
// another server (sandboxd mounts each built-in engine under /runtimes/<BINDING>/).
//
// Thread-safety: handle() may be called from several threads at once; stateless executions run
// in parallel.
#pragma once

#include <memory>
#include <string>

#include <sandbox/clock.h>
#include <sandbox/engine.h>
#include <sandbox/http.h>
#include <sandbox/interpreter.h>

namespace sandbox {

class MetricsRegistry;  // <sandbox/metrics.h>

struct RuntimeOptions {
  // Where code contexts are stored: an SQLite database `interpreters.db` in this directory
  // (created if missing). Empty: an in-memory database, so contexts do not survive a restart.
  std::string data_dir;
  // Wall-clock time for timestamps and idle expiry; nullptr = the system clock. Must outlive
  // the runtime.
  const Clock* clock = nullptr;
  // INTERPRETER_IDLE_TTL_MS; negative = read it from the environment (default 24 h, 0 = never).
  std::int64_t idle_ttl_ms = -1;
  // Resident session instances across all interpreter keys.
  std::size_t max_resident_instances = 16;
  // Run idle expiry on a background thread (tests drive it by hand instead).
  bool background_expiry = true;
  // Where the runtime reports its executions (docs/sandbox-api.md#metrics, labelled with the
  // engine's language; InterpreterServerOptions::metrics for its contexts); null: nowhere.
  // Borrowed: must outlive the runtime. The runtime does not answer GET /metrics itself: the
  // server that serves it does (sandbox-runtime, sandboxd).
  MetricsRegistry* metrics = nullptr;
};

class InterpreterRuntime : public HttpHandler {
 public:
  virtual const Engine& engine() const = 0;
  // Whether GET /interpreter reports contexts: true (the engine has sessions).
  virtual bool contexts() const = 0;
  // Execute in a code context in process, with the pull callback
  // (docs/protocol.md#interpreter-routes: 400 for an invalid key or an engine without sessions,
  // then InterpreterServer's rules).
  [[nodiscard]] virtual InterpreterExecuteResult execute_in_context(
      const std::string& key, const InterpreterExecuteArgs& args,
      const GetWorkspaceFiles& get_files) = 0;
  // The code-context server, or nullptr for an engine without sessions.
  virtual InterpreterServer* interpreter() = 0;
  // Serves HTTP until SIGINT/SIGTERM; `on_listening` gets the bound port (useful with port 0).
  void serve(const ServeOptions& options,
             const std::function<void(std::uint16_t)>& on_listening = {});
};

// Builds the runtime for `engine`, over a database of its own (RuntimeOptions::data_dir). Throws
// std::invalid_argument when the engine is incomplete (empty language, engine name or build, or
// no `run`), and std::runtime_error when the context database cannot be opened. (The programs of
// this tree also build runtimes over a store they share, src/interpreter/over_store.h; the store
// types are not part of the kit.)
std::unique_ptr<InterpreterRuntime> define_interpreter_runtime(Engine engine,
                                                               const RuntimeOptions& options = {});

}  // namespace sandbox

// The runtime server kit: define_interpreter_runtime(engine) turns an Engine into a server that
// speaks the sandbox-workers runtime protocol (`upstream-protocol.md` §4):
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

#include <sandbox/engine.h>
#include <sandbox/http.h>

#include <memory>

namespace sandbox {

class InterpreterRuntime : public HttpHandler {
 public:
  virtual const Engine& engine() const = 0;
  // Whether GET /interpreter reports contexts: true.
  virtual bool contexts() const = 0;
  // Serves HTTP until SIGINT/SIGTERM; `on_listening` gets the bound port (useful with port 0).
  void serve(const ServeOptions& options,
             const std::function<void(std::uint16_t)>& on_listening = {});
};

// Builds the runtime for `engine`. Throws std::invalid_argument when the engine is incomplete
// (empty language, engine name or build, or no `run`).
std::unique_ptr<InterpreterRuntime> define_interpreter_runtime(Engine engine);

}  // namespace sandbox

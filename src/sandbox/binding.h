// Binding: how the sandbox reaches one runtime (upstream's Service Binding;
// docs/sandbox-api.md#binding-probe). A binding has a name (`^[A-Za-z_][A-Za-z0-9_]*$`, e.g. LUA)
// and two ways in:
//
//  - fetch(): the runtime's HTTP surface (GET /interpreter, POST /execute,
//    POST/DELETE /interpreters/:key/...), answering whatever the runtime answers;
//  - execute_in_context(): an execution in a code context with the workspace pull
//    (docs/protocol.md#execute-in-context), which in process is a direct call and over HTTP is
//    the resync handshake (docs/protocol.md#resync-handshake).
//
// Two implementations: a built-in engine in process (local_binding.h) and a remote runtime
// server reached over HTTP (remote_binding.h).
//
// Thread-safety: every method may be called from any thread. Calls for one interpreter key are
// serialized by the caller (the Sandbox actor that owns the key).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <sandbox/engine.h>
#include <sandbox/errors.h>
#include <sandbox/http.h>
#include <sandbox/interpreter.h>

namespace sandbox {

class InterpreterRuntime;

// The runtime could not be reached or answered something unusable. The sandbox answers it with
// 502 INTERNAL_ERROR "Binding '<name>' failed: <message>" (it knows the name); where it reaches a
// boundary without one, it is ErrorKind::kUpstreamFailed, 502 "Binding failed: <message>".
class BindingError : public std::runtime_error, public ClassifiedError {
 public:
  using std::runtime_error::runtime_error;
  ErrorKind kind() const noexcept override { return ErrorKind::kUpstreamFailed; }
  std::string wire_message() const override { return std::string("Binding failed: ") + what(); }
};

// What GET /interpreter reported (docs/protocol.md#capability-probe).
struct RuntimeProbe {
  std::string language;
  std::string engine;
  bool contexts = false;
  int protocol = 1;
};

class Binding {
 public:
  explicit Binding(std::string name) : name_(std::move(name)) {}
  virtual ~Binding() = default;
  Binding(const Binding&) = delete;
  Binding& operator=(const Binding&) = delete;

  const std::string& name() const { return name_; }

  // One request to the runtime's HTTP surface (`path` starts with '/'; a POST body is sent as
  // application/json). Returns the runtime's answer whatever its status. Throws BindingError
  // when the runtime cannot be reached.
  virtual HttpResponse fetch(const std::string& method, const std::string& path,
                             const std::string& body = {}) = 0;

  // A POST to an execute route of the runtime (`path`: "/execute") with streaming
  // (docs/protocol.md#streaming-output): `on_output` (may be empty) sees the guest's output while
  // it runs; the answer is what fetch() would have returned. The default ignores `on_output`.
  virtual HttpResponse fetch_execute(const std::string& path, const std::string& body,
                                     const OutputObserver& /*on_output*/) {
    return fetch("POST", path, body);
  }

  // Executes in a code context of interpreter `key`. `args.on_output`, when set, sees the
  // guest's output while it runs (a remote runtime is asked for an event stream). `get_files`
  // answers the runtime's pull of file contents (called at most twice: once per attempt of the HTTP
  // transport). Returns the response or the error the runtime answered; throws BindingError on
  // transport failure.
  [[nodiscard]] virtual InterpreterExecuteResult execute_in_context(
      const std::string& key, const InterpreterExecuteArgs& args,
      const GetWorkspaceFiles& get_files) = 0;

  // Forgets what is cached about `key` (the remote transport's record of the files that key's
  // mirror holds), e.g. after the key was wiped.
  virtual void forget(const std::string& /*key*/) {}

  // The built-in engine behind a local binding (for GET /languages and /runtimes/...), else
  // nullptr.
  virtual InterpreterRuntime* local_runtime() { return nullptr; }
  // "built-in" or the remote URL with any credentials removed.
  virtual std::string location() const = 0;

 private:
  std::string name_;
};

// The full probe (docs/sandbox-api.md#binding-probe): the name must match the binding pattern, then
// GET /interpreter must answer {language, engine, contexts, protocol?} with protocol 1. Throws
// ApiError 400 "Unknown binding '<name>'" / "Binding '<name>' is not a sandbox-workers runtime
// Worker" / "Binding '<name>' speaks interpreter protocol <n>; this caller supports 1".
RuntimeProbe probe_binding(Binding& binding);

// Binding names: ^[A-Za-z_][A-Za-z0-9_]*$
bool valid_binding_name(std::string_view name);

// The bindings a sandbox server offers, by name. Owns them. Not modified after construction.
class BindingSet {
 public:
  BindingSet() = default;
  // Throws std::invalid_argument for an invalid or duplicate name.
  void add(std::unique_ptr<Binding> binding);
  // The binding named `name` (case-sensitive), or nullptr.
  Binding* find(std::string_view name) const;
  const std::vector<std::unique_ptr<Binding>>& all() const { return bindings_; }

 private:
  std::vector<std::unique_ptr<Binding>> bindings_;
};

}  // namespace sandbox

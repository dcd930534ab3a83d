// A binding to a built-in engine in process: fetch() calls the runtime's HTTP handler directly
// and execute_in_context() calls InterpreterRuntime::execute_in_context with the pull callback
// (upstream's Workers RPC; docs/protocol.md#workspace-pull), so no file content is copied unless
// the interpreter's mirror lacks it.
#pragma once

#include <memory>
#include <string>

#include <sandbox/runtime.h>

#include "sandbox/binding.h"

namespace sandbox {

// Takes ownership of `runtime` (sandboxd also exposes it under /runtimes/<name>/).
std::unique_ptr<Binding> make_local_binding(std::string name,
                                            std::unique_ptr<InterpreterRuntime> runtime);

}  // namespace sandbox

// The interpreter layer over a store its caller owns: sandboxd shares one database among the
// runtimes of its built-in engines, sandbox-runtime hands in PostgreSQL, and tests, fuzz targets
// and benchmarks hand in their own (a temporary SQLite, a store that fails or counts). Internal:
// the store types (src/storage/interpreter_store.h) are not installed, so the public headers
// offer only the runtime that opens its own database (define_interpreter_runtime(engine,
// options), include/sandbox/runtime.h), whose interpreter() is the kit's InterpreterServer.
//
// Thread-safety: what runtime.h and interpreter.h say of the runtime and the server; the store
// is used from the threads that call them.
#pragma once

#include <memory>

#include <sandbox/clock.h>
#include <sandbox/engine.h>
#include <sandbox/interpreter.h>
#include <sandbox/runtime.h>

namespace sandbox {

class InterpreterStore;

// A code-context server for `engine` over `store`. `engine` must have sessions. `engine`,
// `store` and `clock` are borrowed and must outlive the server.
std::unique_ptr<InterpreterServer> make_interpreter_server(const Engine& engine,
                                                           InterpreterStore& store,
                                                           const Clock& clock,
                                                           InterpreterServerOptions options = {});

// define_interpreter_runtime(engine, options) (runtime.h) over `store` instead of a database of
// its own (RuntimeOptions::data_dir is not used). `store` must outlive the runtime. Throws
// std::invalid_argument when the engine is incomplete, as that overload does.
std::unique_ptr<InterpreterRuntime> define_interpreter_runtime(Engine engine,
                                                               InterpreterStore& store,
                                                               const RuntimeOptions& options = {});

}  // namespace sandbox

// The JavaScript engine: QuickJS-ng 0.17.0 compiled to a metered wasm32-wasi reactor
// (driver.c, prelude.js) and served by the embedded-interpreter host (<sandbox/embedded.h>),
// with stateless runs and sessions (code contexts). TypeScript is accepted: code that does not
// compile as JavaScript has its types stripped by sucrase, which runs inside the sandbox from
// the engine's /stdlib (typescript.js, rewrite.js, embedded in the program).
//
// Language semantics (driver.c has the details): a classic global script, so top-level
// declarations persist in a session; the completion value is the result (undefined -> none,
// objects -> json with BigInt as "123n", strings -> single-quoted text, BigInt -> "123n",
// others -> String(v)); a promise result is awaited. console.log/info/debug -> stdout,
// warn/error -> stderr; process.env is the request's variables (frozen); fs (a synchronous
// subset of Node's) and process.cwd()/chdir() work on /workspace; require('fs'), require('path')
// and their node: names return the built-in modules, anything else is an error naming them.
// Import declarations of those modules and top-level await are rewritten (rewrite.js, acorn):
// imports become `var` bindings, a top-level await's declarations become globals and the rest
// runs in an async function whose last expression is the result; code with neither is never
// rewritten. Not supported: export, packages, modules from files, timers (a promise that waits
// on nothing never settles and is reported as an error).
// QuickJS-ng is compiled unpatched; its differences from node are in docs/languages.md. The
// first TypeScript evaluation in an instance loads sucrase, about 12M fuel; the first import
// declaration or top-level await, acorn.
//
// Limits: kJavaScriptFuel per run or session execute (a run also pays for start-up),
// kJavaScriptMemoryBytes of linear memory (the JS heap is capped at 48 MiB inside it), JS
// recursion capped inside the guest (RangeError: Maximum call stack size exceeded), 30 s per
// guest call.
// Native stack: deep JS recursion runs about 1,000 frames deep in the calling thread's stack;
// give threads that run guests a few MiB.
// Thread-safety: the Engine's run() may be called from any thread; module and stdlib are shared.
#pragma once

#include <cstdint>

#include <sandbox/engine.h>
#include <sandbox/engine_limits.h>

namespace sandbox::engines {

inline constexpr std::uint64_t kJavaScriptFuel = 50'000'000;
inline constexpr std::uint64_t kJavaScriptMemoryBytes = kWasmEngineMemoryBytes;

Engine make_javascript_engine();

}  // namespace sandbox::engines

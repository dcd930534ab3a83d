// The Ruby engine: CRuby 4.0.0 from the prebuilt npm module @ruby/4.0-wasm-wasi@2.10.1
// (ruby+stdlib.wasm, compiled by sandbox-wasmc with fuel and a memory cap), driven through its
// wit-bindgen exports (ruby-init, rb-eval-string-protect, rstring-ptr, ...) by a driver of the
// embedded host (<sandbox/embedded.h>): stateless runs and code contexts both start from its
// post-initialisation image, taken after ruby-init, the driver prelude (driver.rb) and one
// warm-up request.
//
// Host glue: the canonical-ABI handle table (canonical_abi.resource_new/get) lives in the
// instance's extension and is empty between calls (the driver returns one String per call and
// drops its handle), which is what makes a memory snapshot complete. The 21 JavaScript-bridge
// imports (rb-js-abi-host) are refused: a program that reaches them (`require "js"`,
// JS.global) ends with "JavaScript host access is disabled", and a context is discarded.
//
// Language semantics (driver.rb has the details): irb-like evaluation in TOPLEVEL_BINDING, so
// locals, methods, classes and globals persist in a context; the last expression is the result
// (nil -> none; a JSON-encodable Hash/Array -> json; else #inspect as text); an exception becomes
// an error with its class, message and backtrace; a jump out of the top level (`return`) is a
// LocalJumpError. ENV is a plain Hash of the request's variables; /workspace is reachable through
// File and Dir; Dir.chdir persists in a context.
//
// Limits: kRubyFuel per run or context step, kRubyMemoryBytes of linear memory (Ruby uses about
// 66 MiB after init), 30 s per call.
// Thread-safety: the Engine's run() may be called from any thread.
#pragma once

#include <cstdint>

#include <sandbox/engine.h>

namespace sandbox::engines {

inline constexpr std::uint64_t kRubyFuel = 1'000'000'000;
inline constexpr std::uint64_t kRubyMemoryBytes = 128ull << 20;

Engine make_ruby_engine();

}  // namespace sandbox::engines

// The Perl engine: Perl 5.42.0 from the prebuilt npm module @6over3/zeroperl-ts@1.0.10
// (zeroperl.wasm, compiled by sandbox-wasmc with fuel and a memory cap), driven through
// zeroperl's C API (zeroperl_init, zeroperl_eval, zeroperl_get_var, ...) by a driver of the
// embedded host (<sandbox/embedded.h>): stateless runs and code contexts both start from its
// post-initialisation image, taken after zeroperl_init, the driver prelude (driver.pl) and one
// warm-up request.
//
// Language semantics (driver.pl has the details): a string eval in package main; `our`
// variables, subs and loaded modules persist in a context, `my` variables do not; the value of
// the last statement is the result (undef -> none; an ARRAY/HASH reference JSON can encode ->
// json; anything else -> its plain stringification as text). `die` becomes an error named after
// the exception's class when it is an object, else "PerlError", its message without trailing
// newlines. `%ENV` is a plain hash of the request's variables; STDOUT/STDERR are UTF-8;
// /workspace is reachable with open/opendir; chdir persists in a context. `exit` ends the call
// with an error and, in a context, discards the instance (the next call restores the last
// snapshot). The host-callback import (env.call_host_function) is refused: the module only calls
// it for functions a JavaScript embedder registered, which never happens here.
//
// Limits: kPerlFuel per run or context step, kPerlMemoryBytes of linear memory, 30 s per call.
// Thread-safety: the Engine's run() may be called from any thread.
#pragma once

#include <cstdint>

#include <sandbox/engine.h>
#include <sandbox/engine_limits.h>

namespace sandbox::engines {

inline constexpr std::uint64_t kPerlFuel = 800'000'000;
inline constexpr std::uint64_t kPerlMemoryBytes = kWasmEngineMemoryBytes;

Engine make_perl_engine();

}  // namespace sandbox::engines

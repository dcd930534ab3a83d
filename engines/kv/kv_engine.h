// The `kv` test engine: a tiny line-oriented language (set/get/incr/print/fail/spin/alloc/
// open/close/write/read; see kv_guest.c) compiled to a metered wasm32-wasi reactor and served by
// the embedded-interpreter host (<sandbox/embedded.h>). It exists to exercise the Wasm host end
// to end — sessions, snapshots, fuel, memory caps, output limits, the workspace — with a guest
// small enough to reason about.
//
// Limits: 10,000,000 fuel per execution, 64 MiB of linear memory, 10 s per guest call.
// Thread-safety: the Engine's run() may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>

#include <sandbox/engine.h>
#include <sandbox/engine_limits.h>

namespace sandbox::engines {

inline constexpr std::uint64_t kKvFuel = 10'000'000;
inline constexpr std::uint64_t kKvMemoryBytes = kWasmEngineMemoryBytes;

Engine make_kv_engine();

// The same engine with another fuel budget and guest call timeout: with fuel to spare, `spin`
// runs until the call's deadline (tests of the deadline watchdog).
Engine make_kv_engine_with(std::uint64_t fuel, std::chrono::milliseconds call_timeout);

}  // namespace sandbox::engines

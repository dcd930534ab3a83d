// The `wkv` test engine: the kv-like language of tests/guests/wasmify/wkv_guest.c, a module
// with a wasmify-shaped API (docs/wasmify-abi.md), served through the kit's wasmify driver
// (<sandbox/wasmify.h>). It exists to exercise that driver end to end (sessions, snapshots, the
// handle, fuel, memory, output, the response limit), with a guest small enough to reason about.
//
// The driver is wkv::make_driver() (driver.h), in the layout `sandbox init --wasmify`
// generates.
//
// Limits: 10,000,000 fuel per execution, 64 MiB of linear memory, 10 s per guest call.
// Thread-safety: the Engine's run() may be called from any thread.
#pragma once

#include <sandbox/engine.h>
#include <sandbox/engine_limits.h>

namespace sandbox::engines {

inline constexpr std::uint64_t kWkvFuel = 10'000'000;
inline constexpr std::uint64_t kWkvMemoryBytes = kWasmEngineMemoryBytes;

Engine make_wkv_engine();

}  // namespace sandbox::engines

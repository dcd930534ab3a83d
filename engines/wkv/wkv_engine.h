// The `wkv` test engine: the kv-like language of tests/guests/wasmify/wkv_guest.c, a module
// with a wasmify-shaped API (docs/wasmify-abi.md), served through the kit's wasmify driver
// (<sandbox/wasmify.h>). It exists to exercise that driver end to end (sessions, snapshots, the
// handle, fuel, memory, output, the response limit), with a guest small enough to reason about.
//
// The driver: init method w_0_2 (wkv_new), eval method w_0_1 (wkv_eval, a binary answer read
// by read_wkv_eval), boot script `helper`, after-copy script `reseed`; one execute is the
// script `run x<hex code> x<hex cwd> x<hex env>`, whose value is our JSON envelope.
//
// Limits: 10,000,000 fuel per execution, 64 MiB of linear memory, 10 s per guest call.
// Thread-safety: the Engine's run() may be called from any thread.
#pragma once

#include <sandbox/engine.h>
#include <sandbox/engine_limits.h>
#include <sandbox/wasmify.h>

namespace sandbox::engines {

inline constexpr std::uint64_t kWkvFuel = 10'000'000;
inline constexpr std::uint64_t kWkvMemoryBytes = kWasmEngineMemoryBytes;

// Reads wkv_eval's answer (field 1: u8 status, then the value or the error, then stdout and
// stderr, each a u32le length and bytes). Throws std::runtime_error when it is not that.
WasmifyEval read_wkv_eval(const wasmify::Response& response);

// The script that runs `request` through the boot script's helper.
std::string phrase_wkv_execute(const DriverRequest& request);

// The driver above.
WasmifyDriver wkv_driver();

Engine make_wkv_engine();

}  // namespace sandbox::engines

// The limits the built-in Wasm language engines share (engines/*/*_engine.cc), in one place.
// Each engine reports the protocol's caps on code and request size, and caps its linear memory at
// kWasmEngineMemoryBytes unless its interpreter needs more (Python, Ruby). Fuel budgets differ per
// engine and stay in each engine's header.
#pragma once

#include <cstdint>

#include <sandbox/engine.h>
#include <sandbox/protocol.h>

namespace sandbox {

// Linear-memory cap of a Wasm language engine: 64 MiB. The engines' modules are compiled with
// the same maximum (SANDBOX_WASM_MAX_MEMORY, cmake/SandboxWasiToolchain.cmake).
inline constexpr std::uint64_t kWasmEngineMemoryBytes = 64ull << 20;

// A Wasm language engine's limits: its own fuel budget and memory cap; the code and request
// sizes it reports are the protocol's caps (kMaxCodeBytes, kMaxRequestBytes), which the server
// enforces for every engine.
constexpr EngineLimits wasm_engine_limits(std::uint64_t fuel,
                                          std::uint64_t memory_bytes = kWasmEngineMemoryBytes) {
  return EngineLimits{.fuel = fuel,
                      .memory_bytes = memory_bytes,
                      .code_bytes = kMaxCodeBytes,
                      .request_bytes = kMaxRequestBytes};
}

}  // namespace sandbox

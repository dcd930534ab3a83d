// The host side of the runtime's test guest (tests/guests/core/limits.c): the `env` imports it
// calls, with a per-instance context saying what each import does, and helpers to make
// instances of the three builds of that guest.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

#include <sandbox/wasm.h>

#include "guest_limits_capped.h"
#include "guest_limits_fuel.h"
#include "guest_limits_plain.h"

namespace sandbox::wasm::testing {

// What env.host_callback(x) does.
enum class CallbackMode {
  kIdentity,           // returns x
  kAddOneSame,         // calls add_one(x) on the calling instance (nested, same instance)
  kAddOneOther,        // calls add_one(x) on `other`
  kRecurse,            // x > 0: returns call_host(x - 1) on the calling instance (0 and
                       // `inner_trap` set if it trapped); 0: returns 0
  kTrapInside,         // calls trap_unreachable on the calling instance; returns 7
  kOutOfBoundsInside,  // calls load(0xfffffff0) on the calling instance; returns 7
  kSleep,              // sleeps `sleep` in host code, then returns x
  kRendezvous,         // increments `arrived` and waits (up to 10 s) until it reaches `expected`
  kTrap,               // traps with `trap_code` (after `exit_code`, or with `trap_message`)
  kOverflowStack,      // a host bug: recurses in host code until the thread's stack overflows
};

struct TestEnv {
  CallbackMode mode = CallbackMode::kIdentity;
  Instance* other = nullptr;
  std::chrono::milliseconds sleep{0};
  std::atomic<int>* arrived = nullptr;
  int expected = 0;
  std::uint32_t trap_code = 0;
  std::uint32_t exit_code = 0;
  const char* trap_message = nullptr;
  // Filled in by the imports:
  int calls = 0;
  bool sleep_finished = false;
  Instance* seen_instance = nullptr;
  wasm_rt_memory_t* seen_memory = nullptr;
  Trap inner_trap;
  bool rendezvous_ok = false;
};

inline Module fuel_module() { return Module(*sandbox_wasm_module_guest_limits_fuel()); }
inline Module plain_module() { return Module(*sandbox_wasm_module_guest_limits_plain()); }
inline Module capped_module() { return Module(*sandbox_wasm_module_guest_limits_capped()); }

inline std::unique_ptr<Instance> make_instance(const Module& module, TestEnv& env,
                                               InstanceOptions options = {}) {
  options.imports.push_back({"env", &env});
  return Instance::create(module, options);
}

}  // namespace sandbox::wasm::testing

#include "test_host.h"

#include <thread>

#include "wasm/host_call.h"

// The import context type of the guest's `env` module is ours to define.
struct Z_env_instance_t;

using sandbox::wasm::Instance;
using sandbox::wasm::testing::CallbackMode;
using sandbox::wasm::testing::TestEnv;

namespace {

// Host recursion with a frame the compiler can neither drop nor turn into a loop; `stop` is
// never set (it keeps -Winfinite-recursion quiet).
volatile bool stop_recursion = false;
std::uint32_t recurse_in_host(std::uint32_t depth) {
  volatile char frame[512];
  frame[depth % sizeof frame] = static_cast<char>(depth);
  if (stop_recursion) return depth;
  return recurse_in_host(depth + 1) + static_cast<std::uint32_t>(frame[depth % sizeof frame]);
}

// Runs the callback's C++ work in its own frame, so nothing with a destructor is alive when
// the import traps (it never does here, but the rule is the rule: CONTRIBUTING.md, code style
// rule 8).
std::uint32_t callback(TestEnv& env, std::uint32_t x) {
  ++env.calls;
  Instance* self = Instance::current();
  env.seen_instance = self;
  env.seen_memory = sandbox_wasm_current_memory();
  switch (env.mode) {
    case CallbackMode::kIdentity:
      return x;
    case CallbackMode::kAddOneSame: {
      auto r = self->call<std::uint32_t(std::uint32_t)>("add_one", x);
      return r.ok() ? r.value : 0;
    }
    case CallbackMode::kAddOneOther: {
      auto r = env.other->call<std::uint32_t(std::uint32_t)>("add_one", x);
      return r.ok() ? r.value : 0;
    }
    case CallbackMode::kRecurse: {
      if (x == 0) return 0;
      auto r = self->call<std::uint32_t(std::uint32_t)>("call_host", x - 1);
      if (!r.ok()) env.inner_trap = r.trap;
      return r.ok() ? r.value : 0;
    }
    case CallbackMode::kOutOfBoundsInside: {
      auto r = self->call<std::uint32_t(std::uint32_t)>("load", 0xfffffff0u);
      env.inner_trap = r.trap;
      return 7;
    }
    case CallbackMode::kOverflowStack:
      return recurse_in_host(x);
    case CallbackMode::kTrapInside: {
      auto r = self->call<void()>("trap_unreachable");
      env.inner_trap = r.trap;
      return 7;
    }
    case CallbackMode::kSleep:
      std::this_thread::sleep_for(env.sleep);
      env.sleep_finished = true;
      return x;
    case CallbackMode::kTrap:
      return x;  // the trap itself is raised by the import below, with no C++ object alive
    case CallbackMode::kRendezvous: {
      env.arrived->fetch_add(1);
      auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (env.arrived->load() < env.expected && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      env.rendezvous_ok = env.arrived->load() >= env.expected;
      return x;
    }
  }
  return x;
}

}  // namespace

extern "C" std::uint32_t Z_envZ_host_callback(Z_env_instance_t* ctx, std::uint32_t x) {
  TestEnv& env = *reinterpret_cast<TestEnv*>(ctx);
  std::uint32_t result = callback(env, x);
  if (env.mode == CallbackMode::kTrap) {
    if (env.trap_code == SANDBOX_TRAP_EXIT) sandbox_wasm_set_exit_code(env.exit_code);
    if (env.trap_message != nullptr)
      sandbox_wasm_trap_with_message(env.trap_code, env.trap_message);
    sandbox_wasm_trap(env.trap_code);
  }
  return result;
}

// A host bug: writes through a bad pointer. The runtime must not turn this into a guest trap.
extern "C" void Z_envZ_host_crash(Z_env_instance_t*) {
  volatile std::uintptr_t address = 16;
  *reinterpret_cast<volatile int*>(address) = 1;
}

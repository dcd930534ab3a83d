// A fault in host code is a host bug: the runtime's signal handler must not swallow it as a
// guest trap; the process dies as it would without the runtime: by SIGSEGV, or (under
// AddressSanitizer, whose handler we forward to) through the sanitizer's report.
#include <csignal>

#include <gtest/gtest.h>
#include <pthread.h>

#include "test_host.h"

#if defined(__SANITIZE_ADDRESS__)
#define EXPECT_HOST_CRASH(statement) EXPECT_DEATH(statement, "")
#else
#define EXPECT_HOST_CRASH(statement) EXPECT_EXIT(statement, ::testing::KilledBySignal(SIGSEGV), "")
#endif

namespace sandbox::wasm {
namespace {

using testing::CallbackMode;
using testing::make_instance;
using testing::plain_module;
using testing::TestEnv;

void crash_in_import() {
  TestEnv env;
  auto inst = make_instance(plain_module(), env);
  inst->call<void()>("call_host_crash");
  std::exit(0);  // not reached: the fault must kill the process
}

void crash_outside_guest_calls() {
  TestEnv env;
  auto inst = make_instance(plain_module(), env);  // the runtime's handlers are installed
  inst->call<std::uint32_t(std::uint32_t, std::uint32_t)>("add", 1, 2);
  volatile std::uintptr_t address = 8;
  *reinterpret_cast<volatile int*>(address) = 1;
  std::exit(0);
}

void host_writes_past_a_guest_memory_outside_a_call() {
  TestEnv env;
  auto inst = make_instance(plain_module(), env);
  // Inside the reservation but no guest call is running: a host bug, not a guest trap.
  volatile std::uint8_t* past = inst->memory().data() + inst->memory().size() + 16;
  *past = 1;
  std::exit(0);
}

// A host import that overflows the thread's stack while called from guest code: a host bug,
// which must not unwind (as a guest kStackExhausted trap) over the import's frames.
void overflow_the_stack_in_an_import() {
  TestEnv env;
  env.mode = CallbackMode::kOverflowStack;
  auto inst = make_instance(plain_module(), env);
  inst->call<std::uint32_t(std::uint32_t)>("call_host", 1);
  std::exit(0);
}

// Runs `body` on a thread of its own with a small stack (the recursion ends quickly).
void on_small_stack(void (*body)()) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, std::size_t{2} << 20);
  pthread_t thread;
  auto run = [](void* f) -> void* {
    reinterpret_cast<void (*)()>(f)();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, run, reinterpret_cast<void*>(body)), 0);
  pthread_attr_destroy(&attr);
  pthread_join(thread, nullptr);
}

class HostFaultDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(HostFaultDeathTest, FaultInAnImportCrashes) { EXPECT_HOST_CRASH(crash_in_import()); }

TEST_F(HostFaultDeathTest, FaultOutsideGuestCallsCrashes) {
  EXPECT_HOST_CRASH(crash_outside_guest_calls());
}

TEST_F(HostFaultDeathTest, HostFaultInAGuestMemoryOutsideACallCrashes) {
  EXPECT_HOST_CRASH(host_writes_past_a_guest_memory_outside_a_call());
}

TEST_F(HostFaultDeathTest, HostStackOverflowInAnImportCrashesInsteadOfTrapping) {
  EXPECT_HOST_CRASH(overflow_the_stack_in_an_import());
}

// Guest-controlled depth: guest -> import -> guest -> ... until the stack runs low. The guest
// traps with kStackExhausted when it calls the import with too little stack left for host code
// (kImportStackReserveBytes), or at the guard page in its own code; the host never overflows
// it, and every import frame returns normally.
TEST(HostStack, DeepNestingThroughImportsTrapsInTheGuestNotInTheHost) {
  static TestEnv* shared = nullptr;
  TestEnv env;
  env.mode = CallbackMode::kRecurse;
  shared = &env;
  on_small_stack([] {
    auto inst = make_instance(plain_module(), *shared);
    auto r = inst->call<std::uint32_t(std::uint32_t)>("call_host", 0xffffffffu);
    EXPECT_TRUE(r.ok()) << r.trap.message;  // the outermost call: its import returned 0
    EXPECT_EQ(shared->inner_trap.kind, TrapKind::kStackExhausted) << shared->inner_trap.message;
    EXPECT_TRUE(inst->invalid());  // a nested call on it trapped
    // The thread is still usable.
    auto again = make_instance(plain_module(), *shared);
    EXPECT_EQ((again->call<std::uint32_t(std::uint32_t, std::uint32_t)>("add", 1, 2).value), 3u);
  });
  EXPECT_GT(env.calls, 100);
}

// What a guest's own code does still traps as before: stack exhaustion in guest code, and an
// out-of-bounds access by a guest called from inside an import (a nested frame).
TEST(HostStack, GuestFaultsStillTrap) {
  on_small_stack([] {
    TestEnv env;
    auto inst = make_instance(plain_module(), env);
    EXPECT_EQ((inst->call<std::uint32_t(std::uint32_t)>("recurse", 0xffffffffu).trap.kind),
              TrapKind::kStackExhausted);
  });
  TestEnv env;
  env.mode = CallbackMode::kOutOfBoundsInside;
  auto inst = make_instance(plain_module(), env);
  auto r = inst->call<std::uint32_t(std::uint32_t)>("call_host", 1);
  EXPECT_TRUE(r.ok()) << r.trap.message;
  EXPECT_EQ(r.value, 1007u);
  EXPECT_EQ(env.inner_trap.kind, TrapKind::kOutOfBounds);
}

}  // namespace
}  // namespace sandbox::wasm

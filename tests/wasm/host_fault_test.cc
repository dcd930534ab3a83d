// A fault in host code is a host bug: the runtime's signal handler must not swallow it as a
// guest trap; the process dies as it would without the runtime: by SIGSEGV, or (under
// AddressSanitizer, whose handler we forward to) through the sanitizer's report.
#include <gtest/gtest.h>

#include <csignal>

#include "test_host.h"

#if defined(__SANITIZE_ADDRESS__)
#define EXPECT_HOST_CRASH(statement) EXPECT_DEATH(statement, "")
#else
#define EXPECT_HOST_CRASH(statement) \
  EXPECT_EXIT(statement, ::testing::KilledBySignal(SIGSEGV), "")
#endif

namespace sandbox::wasm {
namespace {

using testing::TestEnv;
using testing::make_instance;
using testing::plain_module;

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

class HostFaultDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(HostFaultDeathTest, FaultInAnImportCrashes) {
  EXPECT_HOST_CRASH(crash_in_import());
}

TEST_F(HostFaultDeathTest, FaultOutsideGuestCallsCrashes) {
  EXPECT_HOST_CRASH(crash_outside_guest_calls());
}

TEST_F(HostFaultDeathTest, HostFaultInAGuestMemoryOutsideACallCrashes) {
  EXPECT_HOST_CRASH(host_writes_past_a_guest_memory_outside_a_call());
}

}  // namespace
}  // namespace sandbox::wasm

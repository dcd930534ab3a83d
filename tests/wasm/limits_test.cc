// Limits: fuel (deterministic, refillable), memory caps (runtime and build time), deadlines
// (also while an import runs), each turned into an outcome.
#include <thread>

#include <gtest/gtest.h>

#include "test_host.h"
#include "wasm/watchdog.h"

namespace sandbox::wasm {
namespace {

using namespace std::chrono_literals;
using testing::CallbackMode;
using testing::capped_module;
using testing::fuel_module;
using testing::make_instance;
using testing::plain_module;
using testing::TestEnv;
using Clock = std::chrono::steady_clock;

std::uint64_t consumed_by_work(std::uint32_t n) {
  TestEnv env;
  auto inst = make_instance(fuel_module(), env);
  inst->set_fuel(1'000'000'000);
  auto r = inst->call<std::uint32_t(std::uint32_t)>("work", n);
  EXPECT_TRUE(r.ok());
  return inst->fuel_consumed();
}

TEST(Fuel, InfiniteLoopRunsOutAndInvalidates) {
  TestEnv env;
  auto inst = make_instance(fuel_module(), env);
  inst->set_fuel(1'000'000);
  auto r = inst->call<void()>("loop_forever");
  EXPECT_EQ(r.trap.kind, TrapKind::kOutOfFuel);
  EXPECT_EQ(r.trap.message, "Execution fuel exhausted");
  EXPECT_TRUE(r.trap.is_limit());
  EXPECT_EQ(inst->fuel_consumed(), 1'000'000u);
  EXPECT_EQ(inst->fuel_remaining(), 0u);
  EXPECT_TRUE(inst->invalid());
}

TEST(Fuel, SpinWithoutCallsIsMeteredByItsLoop) {
  TestEnv env;
  auto inst = make_instance(fuel_module(), env);
  inst->set_fuel(5'000'000);
  EXPECT_EQ(inst->call<void()>("spin").trap.kind, TrapKind::kOutOfFuel);
}

TEST(Fuel, IsDeterministicAndExact) {
  std::uint64_t a = consumed_by_work(10000);
  std::uint64_t b = consumed_by_work(10000);
  EXPECT_EQ(a, b);
  // At least one unit per iteration and per call of `step`.
  EXPECT_GE(a, 20000u);
  EXPECT_GT(consumed_by_work(20000), a);

  // Exactly `a` units suffice; one less does not.
  TestEnv env;
  auto enough = make_instance(fuel_module(), env);
  enough->set_fuel(a);
  EXPECT_TRUE((enough->call<std::uint32_t(std::uint32_t)>("work", 10000).ok()));
  EXPECT_EQ(enough->fuel_remaining(), 0u);
  auto short_by_one = make_instance(fuel_module(), env);
  short_by_one->set_fuel(a - 1);
  EXPECT_EQ((short_by_one->call<std::uint32_t(std::uint32_t)>("work", 10000).trap.kind),
            TrapKind::kOutOfFuel);
  EXPECT_EQ(short_by_one->fuel_consumed(), a - 1);
}

TEST(Fuel, ResetsPerCallAndCountsAcrossCallsUntilReset) {
  std::uint64_t one = consumed_by_work(1000);
  TestEnv env;
  auto inst = make_instance(fuel_module(), env);
  inst->set_fuel(10 * one);
  inst->call<std::uint32_t(std::uint32_t)>("work", 1000);
  inst->call<std::uint32_t(std::uint32_t)>("work", 1000);
  EXPECT_EQ(inst->fuel_consumed(), 2 * one);
  inst->set_fuel(10 * one);
  EXPECT_EQ(inst->fuel_consumed(), 0u);
  // Fuel is not a snapshot-relevant global.
  EXPECT_TRUE(inst->globals_at_initial());
}

TEST(Fuel, RefillHandlerExtendsTheBudget) {
  TestEnv env;
  auto inst = make_instance(fuel_module(), env);
  int refills = 0;
  inst->set_fuel_exhausted_handler([&]() -> std::uint64_t { return ++refills <= 3 ? 1000 : 0; });
  inst->set_fuel(5000);
  auto r = inst->call<void()>("loop_forever");
  EXPECT_EQ(r.trap.kind, TrapKind::kOutOfFuel);
  EXPECT_EQ(refills, 4);
  EXPECT_EQ(inst->fuel_consumed(), 8000u);
}

// The generated code keeps fuel in a C local per function (sandbox-wasmc's splitter) and writes
// it back around calls and returns; the fuel points are the same as with a tick that updates the
// instance's global directly. These counts were measured with that earlier code generation and
// must not change: work(n) ticks at its entry, at each loop iteration and at each entry of
// `step` (2n + 2); call_indirect at its own and twice's entry (plus one return tick); call_host
// at its entry and, through the import, at add_one's; trap_unreachable at its entry before it
// traps.
TEST(Fuel, CountsAreExactAcrossLoopsCallsImportsAndTraps) {
  TestEnv env;
  env.mode = CallbackMode::kAddOneSame;
  auto inst = make_instance(fuel_module(), env);
  auto consumed = [&](auto&& call) {
    inst->set_fuel(1'000'000'000);
    call();
    return inst->fuel_consumed();
  };
  EXPECT_EQ(consumed([&] {
              EXPECT_EQ((inst->call<std::uint32_t(std::uint32_t)>("work", 10000).value),
                        (make_instance(plain_module(), env)
                             ->call<std::uint32_t(std::uint32_t)>("work", 10000)
                             .value));
            }),
            20002u);
  EXPECT_EQ(
      consumed([&] {
        EXPECT_EQ(
            (inst->call<std::uint32_t(std::uint32_t, std::uint32_t)>("call_indirect", 1, 21).value),
            42u);
      }),
      3u);
  EXPECT_EQ(consumed([&] {
              EXPECT_EQ((inst->call<std::uint32_t(std::uint32_t)>("call_host", 5).value), 1006u);
            }),
            2u);
  EXPECT_EQ(consumed([&] {
              EXPECT_EQ(inst->call<void()>("trap_unreachable").trap.kind, TrapKind::kUnreachable);
            }),
            1u);
}

// Refills from the exhausted import continue the guest where it stopped, with the same total.
TEST(Fuel, RefillsKeepTheCountExact) {
  TestEnv env;
  auto inst = make_instance(fuel_module(), env);
  int refills = 0;
  inst->set_fuel_exhausted_handler([&]() -> std::uint64_t {
    ++refills;
    return 1000;
  });
  inst->set_fuel(7);
  auto r = inst->call<std::uint32_t(std::uint32_t)>("work", 10000);
  ASSERT_TRUE(r.ok()) << r.trap.message;
  EXPECT_EQ(refills, 20);  // 7 + 20 * 1000 >= 20002 > 7 + 19 * 1000
  EXPECT_EQ(inst->fuel_consumed(), 20002u);
  EXPECT_EQ(inst->fuel_remaining(), 7u + 20000u - 20002u);
  auto plain = make_instance(plain_module(), env);
  EXPECT_EQ(r.value, (plain->call<std::uint32_t(std::uint32_t)>("work", 10000).value));
}

TEST(Fuel, UnmeteredModulesRefuseFuel) {
  TestEnv env;
  auto inst = make_instance(plain_module(), env);
  EXPECT_THROW(inst->set_fuel(1), WasmError);
  EXPECT_EQ(inst->fuel_consumed(), 0u);
}

TEST(MemoryLimit, MemoryBombStopsAtTheCapAsAGuestError) {
  TestEnv env;
  auto inst = make_instance(plain_module(), env, {.memory_limit_bytes = 4 << 20});
  EXPECT_EQ(inst->memory_limit_pages(), 64u);
  auto r = inst->call<std::uint32_t()>("memory_bomb");
  ASSERT_TRUE(r.ok()) << r.trap.message;
  EXPECT_LE(r.value, 64u);
  EXPECT_GT(r.value, 64u - 16u);
  EXPECT_FALSE(inst->invalid());
  EXPECT_EQ((inst->call<std::uint32_t(std::uint32_t)>("grow", 64).value), 0xffffffffu);
  // Raising the cap lets it grow again; a cap below the current size only stops growth.
  inst->set_memory_limit(8 << 20);
  EXPECT_EQ((inst->call<std::uint32_t(std::uint32_t)>("grow", 1).value), r.value);
  inst->set_memory_limit(1 << 20);
  EXPECT_EQ((inst->call<std::uint32_t(std::uint32_t)>("grow", 1).value), 0xffffffffu);
  EXPECT_EQ(inst->memory_pages(), r.value + 1);
}

TEST(MemoryLimit, CapBelowInitialSizeIsAnError) {
  TestEnv env;
  EXPECT_THROW(make_instance(plain_module(), env, {.memory_limit_bytes = 65536}), WasmError);
}

TEST(MemoryLimit, BuildTimeCapIsTheModulesMaximum) {
  Module m = capped_module();
  EXPECT_EQ(m.max_pages(), 40u);
  TestEnv env;
  auto inst = make_instance(m, env);
  EXPECT_EQ(inst->memory_limit_pages(), 40u);
  auto r = inst->call<std::uint32_t()>("memory_bomb");
  ASSERT_TRUE(r.ok());
  EXPECT_LE(r.value, 40u);
  // A runtime limit above the build-time cap does not raise it.
  auto wide = make_instance(m, env, {.memory_limit_bytes = 1 << 30});
  EXPECT_EQ(wide->memory_limit_pages(), 40u);
}

TEST(Deadline, StopsASpinWithoutCalls) {
  TestEnv env;
  Watchdog watchdog;
  auto inst = make_instance(plain_module(), env, {.watchdog = &watchdog});
  inst->set_call_timeout(100ms);
  auto start = Clock::now();
  auto r = inst->call<void()>("spin");
  auto elapsed = Clock::now() - start;
  EXPECT_EQ(r.trap.kind, TrapKind::kDeadline);
  EXPECT_EQ(r.trap.message, "Execution time limit exceeded");
  EXPECT_TRUE(r.trap.is_limit());
  EXPECT_TRUE(inst->invalid());
  EXPECT_GE(elapsed, 100ms);
  EXPECT_LT(elapsed, 2s);
  EXPECT_GE(watchdog.signals_sent(), 1u);
}

TEST(Deadline, StopsAMeteredLoopWithPlentyOfFuel) {
  TestEnv env;
  auto inst = make_instance(fuel_module(), env);  // the process-wide watchdog
  inst->set_fuel(INT64_MAX);
  inst->set_call_timeout(50ms);
  EXPECT_EQ(inst->call<void()>("loop_forever").trap.kind, TrapKind::kDeadline);
}

TEST(Deadline, AnEndedProcessWatchdogIsStartedAgainByTheNextCall) {
  TestEnv env;
  for (int round = 0; round < 2; ++round) {
    auto inst = make_instance(fuel_module(), env);  // the process-wide watchdog
    inst->set_fuel(INT64_MAX);
    inst->set_call_timeout(50ms);
    EXPECT_EQ(inst->call<void()>("loop_forever").trap.kind, TrapKind::kDeadline) << round;
    end_process_watchdog();  // what the zygote does before it forks
  }
}

TEST(Deadline, IsDeferredWhileAnImportRunsAndFiresWhenItReturns) {
  TestEnv env;
  env.mode = CallbackMode::kSleep;
  env.sleep = 300ms;
  auto inst = make_instance(plain_module(), env);
  inst->set_call_timeout(50ms);
  auto start = Clock::now();
  auto r = inst->call<std::uint32_t(std::uint32_t)>("call_host", 1);
  auto elapsed = Clock::now() - start;
  EXPECT_EQ(r.trap.kind, TrapKind::kDeadline);
  EXPECT_TRUE(env.sleep_finished);  // the host code was not cut short
  EXPECT_GE(elapsed, 300ms);
  EXPECT_LT(elapsed, 3s);
}

TEST(Deadline, AbsoluteDeadlineSpansCalls) {
  TestEnv env;
  auto inst = make_instance(plain_module(), env);
  inst->set_deadline(Clock::now() + 100ms);
  EXPECT_TRUE((inst->call<std::uint32_t(std::uint32_t, std::uint32_t)>("add", 1, 2).ok()));
  EXPECT_EQ(inst->call<void()>("spin").trap.kind, TrapKind::kDeadline);
}

TEST(Deadline, ShortCallsAreNeverInterrupted) {
  TestEnv env;
  Watchdog watchdog;
  auto inst = make_instance(plain_module(), env, {.watchdog = &watchdog});
  inst->set_call_timeout(5s);
  for (int i = 0; i < 2000; ++i) {
    ASSERT_TRUE((inst->call<std::uint32_t(std::uint32_t)>("work", 100).ok()));
  }
  EXPECT_EQ(watchdog.signals_sent(), 0u);
}

// The watchdog sleeps until the earliest deadline it was told about and is woken only for an
// earlier one (watchdog.h). A short deadline after a long one wakes it.
TEST(Deadline, AShortDeadlineAfterALongOneStillFiresOnTime) {
  TestEnv env;
  Watchdog watchdog;
  auto slow = make_instance(plain_module(), env, {.watchdog = &watchdog});
  slow->set_call_timeout(30s);
  ASSERT_TRUE((slow->call<std::uint32_t(std::uint32_t, std::uint32_t)>("add", 1, 2).ok()));
  auto fast = make_instance(plain_module(), env, {.watchdog = &watchdog});
  fast->set_call_timeout(100ms);
  const auto start = Clock::now();
  EXPECT_EQ(fast->call<void()>("spin").trap.kind, TrapKind::kDeadline);
  EXPECT_LT(Clock::now() - start, 5s);  // not at the long deadline's 30 s
}

// A later deadline armed while the watchdog sleeps toward an earlier one does not wake it; it
// fires once the earlier one has been dealt with.
TEST(Deadline, ALaterDeadlineArmedMeanwhileFiresAfterTheEarlierOne) {
  TestEnv env;
  Watchdog watchdog;
  Module m = plain_module();
  TrapKind first = TrapKind::kNone;
  std::thread early([&] {
    auto inst = make_instance(m, env, {.watchdog = &watchdog});
    inst->set_call_timeout(200ms);
    first = inst->call<void()>("spin").trap.kind;
  });
  std::this_thread::sleep_for(50ms);
  auto inst = make_instance(m, env, {.watchdog = &watchdog});
  inst->set_call_timeout(400ms);
  const auto start = Clock::now();
  EXPECT_EQ(inst->call<void()>("spin").trap.kind, TrapKind::kDeadline);
  const auto elapsed = Clock::now() - start;
  early.join();
  EXPECT_EQ(first, TrapKind::kDeadline);
  EXPECT_GE(elapsed, 400ms);
  EXPECT_LT(elapsed, 5s);
}

TEST(Deadline, RacingDeadlinesNeverHitTheWrongCall) {
  // Calls that take about as long as their deadline: some are interrupted, some finish just
  // in time. A late signal must never interrupt a later call that has no deadline.
  TestEnv env;
  Watchdog watchdog;
  Module m = plain_module();
  int interrupted = 0;
  for (int i = 0; i < 200; ++i) {
    auto inst = make_instance(m, env, {.watchdog = &watchdog});
    inst->set_call_timeout(200us);
    auto r = inst->call<std::uint32_t(std::uint32_t)>("work", 200000);
    if (!r.ok()) {
      EXPECT_EQ(r.trap.kind, TrapKind::kDeadline);
      ++interrupted;
    }
    auto free_run = make_instance(m, env, {.watchdog = &watchdog});
    ASSERT_TRUE((free_run->call<std::uint32_t(std::uint32_t)>("work", 200000).ok()));
  }
  EXPECT_GT(interrupted, 0);
}

}  // namespace
}  // namespace sandbox::wasm

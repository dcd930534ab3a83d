// Guests on several threads at once: true parallelism, and traps on several threads at once
// each land in their own thread's call.
#include <thread>

#include <gtest/gtest.h>

#include "test_host.h"

namespace sandbox::wasm {
namespace {

using namespace std::chrono_literals;
using testing::CallbackMode;
using testing::fuel_module;
using testing::make_instance;
using testing::plain_module;
using testing::TestEnv;

TEST(Threads, TwoGuestsRunAtTheSameTime) {
  // Each guest calls an import that waits until the other guest is inside its import too:
  // both calls are in progress at once, on two threads.
  std::atomic<int> arrived{0};
  TestEnv envs[2];
  std::uint32_t results[2] = {0, 0};
  std::uint32_t work[2] = {0, 0};
  std::thread threads[2];
  for (int t = 0; t < 2; ++t) {
    envs[t].mode = CallbackMode::kRendezvous;
    envs[t].arrived = &arrived;
    envs[t].expected = 2;
    threads[t] = std::thread([&, t] {
      auto inst = make_instance(t == 0 ? fuel_module() : plain_module(), envs[t]);
      if (t == 0) inst->set_fuel(INT64_MAX);
      work[t] = inst->call<std::uint32_t(std::uint32_t)>("work", 3'000'000).value;
      results[t] = inst->call<std::uint32_t(std::uint32_t)>("call_host", t).value;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_TRUE(envs[0].rendezvous_ok);
  EXPECT_TRUE(envs[1].rendezvous_ok);
  EXPECT_EQ(results[0], 1000u);
  EXPECT_EQ(results[1], 1001u);
  EXPECT_EQ(work[0], work[1]);  // same computation, metered or not
}

TEST(Threads, SimultaneousTrapsStayOnTheirOwnThread) {
  TrapKind kinds[4] = {};
  std::thread threads[4];
  threads[0] = std::thread([&] {
    TestEnv env;
    auto inst = make_instance(plain_module(), env);
    kinds[0] = inst->call<std::uint32_t(std::uint32_t)>("recurse", 0xffffffffu).trap.kind;
  });
  threads[1] = std::thread([&] {
    TestEnv env;
    auto inst = make_instance(plain_module(), env);
    for (int i = 0; i < 1000 && kinds[1] == TrapKind::kNone; ++i) {
      auto fresh = make_instance(plain_module(), env);
      kinds[1] = fresh->call<std::uint32_t(std::uint32_t)>("load", 0xfffffff0u).trap.kind;
    }
  });
  threads[2] = std::thread([&] {
    TestEnv env;
    auto inst = make_instance(plain_module(), env);
    inst->set_call_timeout(150ms);
    kinds[2] = inst->call<void()>("spin").trap.kind;
  });
  threads[3] = std::thread([&] {
    TestEnv env;
    auto inst = make_instance(fuel_module(), env);
    inst->set_fuel(50'000'000);
    kinds[3] = inst->call<void()>("loop_forever").trap.kind;
  });
  for (auto& t : threads) t.join();
  EXPECT_EQ(kinds[0], TrapKind::kStackExhausted);
  EXPECT_EQ(kinds[1], TrapKind::kOutOfBounds);
  EXPECT_EQ(kinds[2], TrapKind::kDeadline);
  EXPECT_EQ(kinds[3], TrapKind::kOutOfFuel);
}

TEST(Threads, ManyThreadsManyInstances) {
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      TestEnv env;
      Module m = t % 2 ? fuel_module() : plain_module();
      for (int i = 0; i < 200; ++i) {
        auto inst = make_instance(m, env);
        if (m.metered()) inst->set_fuel(1'000'000);
        auto r = inst->call<std::uint32_t(std::uint32_t, std::uint32_t)>("add", t, i);
        if (r.ok() && r.value == static_cast<std::uint32_t>(t + i)) ok.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 8 * 200);
}

}  // namespace
}  // namespace sandbox::wasm

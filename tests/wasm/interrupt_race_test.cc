// A deadline that arrives while the runtime changes state on the guest's behalf (memory.grow, a
// write-tracking fault, a fuel refill) takes effect only once that state is consistent; and a
// pooled reservation never hands writable pages beyond its size to the next tenant.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>

#include "race_hook.h"
#include "test_host.h"
#include "wasm/runtime.h"

namespace sandbox::wasm {
namespace {

using namespace std::chrono_literals;
using testing::fuel_module;
using testing::make_instance;
using testing::plain_module;
using testing::TestEnv;

constexpr std::uint32_t kPage = SANDBOX_WASM_PAGE_SIZE;

// Bytes of [begin, end) mapped writable, from /proc/self/maps.
std::uint64_t writable_bytes(const std::uint8_t* begin, const std::uint8_t* end) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  std::uint64_t total = 0;
  const auto lo = reinterpret_cast<std::uintptr_t>(begin);
  const auto hi = reinterpret_cast<std::uintptr_t>(end);
  while (std::getline(maps, line)) {
    std::uintptr_t from = 0, to = 0;
    char perms[5] = {};
    const int fields =
        std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " %4s", &from, &to, perms);
    if (fields != 3 || perms[1] != 'w') continue;
    const std::uintptr_t a = std::max(from, lo), b = std::min(to, hi);
    if (a < b) total += b - a;
  }
  return total;
}

std::uint64_t writable_beyond_size(Instance& inst) {
  const std::uint8_t* data = inst.memory().data();
  return writable_bytes(data + inst.memory().size(), data + SANDBOX_WASM_RESERVATION);
}

// Disarms the race hook whatever the test's outcome.
struct RaceAt {
  explicit RaceAt(int point) { sandbox_test_arm_race(point); }
  ~RaceAt() { sandbox_test_arm_race(0); }
  bool fired() const { return sandbox_test_race_fired() != 0; }
};

TEST(InterruptRace, DeadlineDuringMemoryGrowLeavesNoWritablePageBeyondTheSize) {
  for (bool tracked : {false, true}) {
    TestEnv env;
    Watchdog watchdog;
    auto inst = make_instance(plain_module(), env, {.watchdog = &watchdog});
    if (tracked) {
      ASSERT_TRUE(inst->track_writes());
    }
    inst->set_call_timeout(1h);  // a deadline on the call; the race point delivers it early
    const std::uint32_t before = inst->memory_pages();
    RaceAt race(SANDBOX_WASM_RACE_GROW);
    auto r = inst->call<std::uint32_t(std::uint32_t)>("grow", 4);
    ASSERT_TRUE(race.fired());
    EXPECT_EQ(r.trap.kind, TrapKind::kDeadline) << "tracked " << tracked;
    // The grow completed before the deadline took effect: size and protection agree.
    EXPECT_EQ(inst->memory_pages(), before + 4) << "tracked " << tracked;
    EXPECT_EQ(writable_beyond_size(*inst), 0u) << "tracked " << tracked;
    if (tracked) {
      // The new pages start clean: a host write to one of them is reported.
      inst->memory()[std::size_t{before} * kPage] = 1;
      EXPECT_EQ(inst->take_dirty_pages(), std::vector<std::uint32_t>{before});
    }
  }
}

TEST(InterruptRace, DeadlineDuringATrackingFaultKeepsTheDirtySetExact) {
  TestEnv env;
  Watchdog watchdog;
  auto inst = make_instance(plain_module(), env, {.watchdog = &watchdog});
  ASSERT_TRUE(inst->track_writes());
  inst->set_call_timeout(1h);
  const std::uint32_t page = inst->memory_pages() - 1;
  {
    RaceAt race(SANDBOX_WASM_RACE_TRACKING_FAULT);
    auto r = inst->call<void(std::uint32_t, std::uint32_t)>("store", page * kPage + 8, 1);
    ASSERT_TRUE(race.fired());
    EXPECT_EQ(r.trap.kind, TrapKind::kDeadline);
  }
  // The page the fault made writable is marked dirty, so a later write to it (here by the
  // host) is in the next snapshot's dirty set.
  inst->memory()[std::size_t{page} * kPage + 16] = 2;
  EXPECT_EQ(inst->take_dirty_pages(), std::vector<std::uint32_t>{page});
}

TEST(InterruptRace, FuelGrantedByARefillIsKeptWhenTheDeadlineFiresAtItsReturn) {
  TestEnv env;
  Watchdog watchdog;
  auto inst = make_instance(fuel_module(), env, {.watchdog = &watchdog});
  int refills = 0;
  // The deadline passes while the handler runs (host code): it fires when the handler returns.
  inst->set_fuel_exhausted_handler([&]() -> std::uint64_t {
    ++refills;
    std::this_thread::sleep_for(300ms);
    return 5000;
  });
  inst->set_fuel(1000);
  inst->set_call_timeout(50ms);
  auto r = inst->call<void()>("loop_forever");
  EXPECT_EQ(r.trap.kind, TrapKind::kDeadline);
  ASSERT_EQ(refills, 1);
  // Every unit handed out is either consumed or still remaining.
  EXPECT_EQ(inst->fuel_consumed() + inst->fuel_remaining(), 1000u + 5000u);
  EXPECT_GT(inst->fuel_remaining(), 4000u);
}

// Whether the deadline signal is blocked on this thread.
bool interrupt_signal_blocked() {
  sigset_t mask;
  EXPECT_EQ(pthread_sigmask(SIG_BLOCK, nullptr, &mask), 0);
  return sigismember(&mask, sandbox_wasm_interrupt_signal()) == 1;
}

// Regression (a crash of the ASan build under load, docs/fuzzing.md#sanitizer-limits): the
// deadline handler ran with its own signal unblocked, so the watchdog's repeat could nest into a
// handler that had not jumped yet (a thread descheduled inside the sanitizer's lock before the
// jump deadlocked on its own lock, and the repeats filled the signal stack). A repeat sent from
// inside the handler now waits until the trap has landed, and is then ignored.
TEST(InterruptRace, ARepeatOfTheDeadlineWaitsUntilTheHandlerHasJumped) {
  TestEnv env;
  Watchdog watchdog;
  auto inst = make_instance(plain_module(), env, {.watchdog = &watchdog});
  inst->set_call_timeout(1ms);
  RaceAt race(SANDBOX_WASM_RACE_INTERRUPT_JUMP);
  auto r = inst->call<std::uint32_t(std::uint32_t)>("work", 2'000'000'000);
  ASSERT_TRUE(race.fired());
  EXPECT_EQ(r.trap.kind, TrapKind::kDeadline);
  EXPECT_TRUE(sandbox_test_race_signal_blocked()) << "the handler could be interrupted again";
  // Unblocked once the trap landed, and the repeat did not reach the next call.
  EXPECT_FALSE(interrupt_signal_blocked());
  auto fresh = make_instance(plain_module(), env, {.watchdog = &watchdog});
  auto next = fresh->call<std::uint32_t(std::uint32_t)>("work", 1000);
  EXPECT_TRUE(next.ok());
}

// A trap out of the fault handler (a guest's out-of-bounds access) leaves the deadline signal
// unblocked as well: the next deadline still interrupts.
TEST(InterruptRace, TheDeadlineSignalIsUnblockedAfterATrapFromTheFaultHandler) {
  TestEnv env;
  Watchdog watchdog;
  auto inst = make_instance(plain_module(), env, {.watchdog = &watchdog});
  auto oob = inst->call<std::uint32_t(std::uint32_t)>("load", 0xFFFFFFF0u);
  EXPECT_EQ(oob.trap.kind, TrapKind::kOutOfBounds);
  EXPECT_FALSE(interrupt_signal_blocked());
  auto fresh = make_instance(plain_module(), env, {.watchdog = &watchdog});
  fresh->set_call_timeout(1ms);
  auto r = fresh->call<std::uint32_t(std::uint32_t)>("work", 2'000'000'000);
  EXPECT_EQ(r.trap.kind, TrapKind::kDeadline);
}

TEST(MemoryPoolReuse, EverythingBeyondTheSizeIsInaccessibleAndZeroForTheNextTenant) {
  MemoryPool pool(1);
  TestEnv env;
  const std::uint8_t* data = nullptr;
  {
    auto first = make_instance(plain_module(), env, {.pool = &pool});
    auto* end = first->memory().data() + first->memory().size();
    data = first->memory().data();
    // Pages beyond the size left writable with data in them (what a grow cut short by a
    // signal left behind): the pool must not trust the memory's bookkeeping.
    ASSERT_EQ(mprotect(end, 2 * kPage, PROT_READ | PROT_WRITE), 0);
    std::memset(end, 0x5a, 2 * kPage);
  }
  ASSERT_EQ(pool.cached(), 1u);
  auto next = make_instance(plain_module(), env, {.pool = &pool});
  ASSERT_EQ(next->memory().data(), data);  // the same reservation
  EXPECT_EQ(writable_beyond_size(*next), 0u);
  const std::uint32_t size = static_cast<std::uint32_t>(next->memory().size());
  ASSERT_EQ((next->call<std::uint32_t(std::uint32_t)>("grow", 2).value), size / kPage);
  EXPECT_EQ((next->call<std::uint32_t(std::uint32_t)>("load", size).value), 0u);
  EXPECT_EQ((next->call<std::uint32_t(std::uint32_t)>("load", size + kPage + 64).value), 0u);
  auto r = next->call<std::uint32_t(std::uint32_t)>("load", size + 2 * kPage);
  EXPECT_EQ(r.trap.kind, TrapKind::kOutOfBounds);
}

}  // namespace
}  // namespace sandbox::wasm

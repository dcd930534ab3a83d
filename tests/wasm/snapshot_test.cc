// Snapshot/restore: state survives into a fresh instance that never ran its initialisation;
// mutable globals are checked (or saved explicitly); restore only into fresh instances.
#include <algorithm>
#include <cstring>

#include <gtest/gtest.h>

#include "test_host.h"

namespace sandbox::wasm {
namespace {

using testing::fuel_module;
using testing::make_instance;
using testing::plain_module;
using testing::TestEnv;

struct Observed {
  std::uint64_t counter;
  std::uint32_t message;
  std::uint32_t page;
  std::uint32_t pages;
};

Observed observe(Instance& inst) {
  return {inst.call<std::uint64_t()>("counter_value").value,
          inst.call<std::uint32_t()>("message_checksum").value,
          inst.call<std::uint32_t()>("page_checksum").value,
          inst.call<std::uint32_t()>("pages").value};
}

TEST(Snapshot, RoundTripIntoAFreshInstance) {
  Module m = fuel_module();
  TestEnv env;
  Snapshot snap;
  Observed before;
  {
    auto a = make_instance(m, env);
    a->set_fuel(10'000'000);
    ASSERT_EQ((a->call<std::uint64_t(std::uint64_t)>("bump", 35).value), 42u);
    a->call<void(std::uint32_t)>("set_message", 3);
    ASSERT_NE((a->call<std::uint32_t(std::uint32_t)>("fill_new_page", 9).value), 0xffffffffu);
    before = observe(*a);
    ASSERT_TRUE(a->globals_at_initial());
    snap = a->snapshot();
    EXPECT_FALSE(snap.globals.has_value());
    EXPECT_EQ(snap.pages, a->memory_pages());
    EXPECT_EQ(snap.memory.size(), snap.pages * 65536u);
  }
  auto b = make_instance(m, env);
  EXPECT_EQ(b->state(), InstanceState::kFresh);
  b->restore(snap);
  EXPECT_EQ(b->state(), InstanceState::kReady);
  b->set_fuel(10'000'000);
  Observed after = observe(*b);
  EXPECT_EQ(after.counter, 42u);
  EXPECT_EQ(after.message, before.message);
  EXPECT_EQ(after.page, before.page);
  EXPECT_NE(after.page, 0u);
  EXPECT_EQ(after.pages, before.pages);
  // And it keeps working from there.
  EXPECT_EQ((b->call<std::uint64_t(std::uint64_t)>("bump", 1).value), 43u);
  // A fresh instance without the restore has the initial state.
  auto c = make_instance(m, env);
  c->set_fuel(10'000'000);
  EXPECT_EQ(c->call<std::uint64_t()>("counter_value").value, 7u);
}

// InstanceOptions::skip_data_segments: the memory starts zero (no `counter = 7`, no
// "initial" message) and the restore alone gives it its state.
TEST(Snapshot, AnInstanceThatSkipsItsDataSegmentsGetsItsStateFromTheRestore) {
  Module m = fuel_module();
  TestEnv env;
  Snapshot snap;
  Observed before;
  {
    auto a = make_instance(m, env);
    a->set_fuel(10'000'000);
    ASSERT_EQ((a->call<std::uint64_t(std::uint64_t)>("bump", 35).value), 42u);
    before = observe(*a);
    snap = a->snapshot();
  }
  auto skipped = make_instance(m, env, {.skip_data_segments = true});
  const auto memory = skipped->memory();
  EXPECT_TRUE(std::all_of(memory.begin(), memory.end(), [](std::uint8_t b) { return b == 0; }));
  skipped->restore(snap);
  skipped->set_fuel(10'000'000);
  const Observed after = observe(*skipped);
  EXPECT_EQ(after.counter, 42u);
  EXPECT_EQ(after.message, before.message);
  // The flag lasts for one instantiation: the next instance on this thread copies its segments.
  auto next = make_instance(m, env);
  next->set_fuel(10'000'000);
  EXPECT_EQ(next->call<std::uint64_t()>("counter_value").value, 7u);
}

TEST(Snapshot, StreamedRestoreWritesPagesIntoTheMemoryView) {
  Module m = plain_module();
  TestEnv env;
  auto a = make_instance(m, env);
  a->call<std::uint64_t(std::uint64_t)>("bump", 100);
  a->call<std::uint32_t(std::uint32_t)>("fill_new_page", 5);
  Observed before = observe(*a);
  auto b = make_instance(m, env);
  b->prepare_restore(a->memory_pages());
  ASSERT_EQ(b->memory().size(), a->memory().size());
  // Write only the pages that differ, as the server's chunk store does.
  auto src = a->memory();
  auto dst = b->memory();
  for (std::size_t off = 0; off < src.size(); off += 65536) {
    if (std::memcmp(src.data() + off, dst.data() + off, 65536) != 0) {
      std::memcpy(dst.data() + off, src.data() + off, 65536);
    }
  }
  Observed after = observe(*b);
  EXPECT_EQ(after.counter, before.counter);
  EXPECT_EQ(after.page, before.page);
}

// A ready instance reused for a restore grows its memory from the host, as the guest's
// memory.grow would: new pages zero, never smaller, never past the cap, only when ready.
TEST(Snapshot, AReadyInstanceGrowsForARestoreAndNeverShrinks) {
  Module m = plain_module();
  TestEnv env;
  auto fresh = make_instance(m, env);
  EXPECT_THROW(fresh->grow_memory_to(fresh->memory_pages() + 1), WasmError);  // not ready
  auto a = make_instance(m, env);
  a->prepare_restore(a->memory_pages());
  const std::uint32_t pages = a->memory_pages();
  a->grow_memory_to(pages + 3);
  ASSERT_EQ(a->memory_pages(), pages + 3);
  const auto grown = a->memory().subspan(std::size_t{pages} * 65536);
  EXPECT_TRUE(std::all_of(grown.begin(), grown.end(), [](std::uint8_t b) { return b == 0; }));
  grown[0] = 7;                                                   // writable
  EXPECT_EQ(a->call<std::uint32_t()>("pages").value, pages + 3);  // the guest sees the size
  EXPECT_THROW(a->grow_memory_to(pages), WasmError);
  a->grow_memory_to(pages + 3);  // the same size: nothing to do
  a->set_memory_limit(std::uint64_t{pages + 4} * 65536);
  EXPECT_THROW(a->grow_memory_to(pages + 5), WasmError);
  EXPECT_EQ(a->memory_pages(), pages + 3);
}

TEST(Snapshot, RefusedWhenAMutableGlobalMovedUnlessSavedExplicitly) {
  Module m = plain_module();
  TestEnv env;
  auto a = make_instance(m, env);
  a->call<std::uint64_t(std::uint64_t)>("bump", 1);
  a->call<void()>("leak_stack_pointer");
  EXPECT_FALSE(a->globals_at_initial());
  EXPECT_THROW(a->snapshot(), WasmError);
  EXPECT_THROW(a->snapshot(GlobalsPolicy::kRequireInitial), WasmError);

  Snapshot snap = a->snapshot(GlobalsPolicy::kSave);
  ASSERT_TRUE(snap.globals.has_value());
  EXPECT_EQ(snap.globals->size(), 4u);  // __stack_pointer
  auto b = make_instance(m, env);
  b->restore(snap);
  EXPECT_FALSE(b->globals_at_initial());
  EXPECT_EQ(b->save_globals(), a->save_globals());
  b->call<void()>("restore_stack_pointer");
  EXPECT_TRUE(b->globals_at_initial());
  EXPECT_EQ(b->call<std::uint64_t()>("counter_value").value, 8u);

  a->call<void()>("restore_stack_pointer");
  EXPECT_TRUE(a->globals_at_initial());
  EXPECT_NO_THROW(a->snapshot());
}

TEST(Snapshot, LoadGlobalsChecksTheSize) {
  TestEnv env;
  auto a = make_instance(plain_module(), env);
  std::vector<std::uint8_t> wrong(3);
  EXPECT_THROW(a->load_globals(wrong), WasmError);
}

TEST(Restore, OnlyIntoFreshInstances) {
  Module m = plain_module();
  TestEnv env;
  auto a = make_instance(m, env);
  Snapshot snap = a->snapshot();
  auto used = make_instance(m, env);
  used->call<std::uint64_t()>("counter_value");
  EXPECT_THROW(used->restore(snap), WasmError);
  auto restored = make_instance(m, env);
  restored->restore(snap);
  EXPECT_THROW(restored->restore(snap), WasmError);
}

TEST(Restore, RejectsInconsistentOrOversizedSnapshots) {
  Module m = plain_module();
  TestEnv env;
  auto a = make_instance(m, env);
  a->call<std::uint32_t(std::uint32_t)>("grow", 100);
  Snapshot big = a->snapshot();
  auto capped = make_instance(m, env, {.memory_limit_bytes = 64 << 16});
  EXPECT_THROW(capped->restore(big), WasmError);
  EXPECT_EQ(capped->state(), InstanceState::kFresh);

  Snapshot torn = big;
  torn.memory.resize(torn.memory.size() - 1);
  EXPECT_THROW(make_instance(m, env)->restore(torn), WasmError);

  Snapshot tiny;
  tiny.pages = 0;
  EXPECT_THROW(make_instance(m, env)->restore(tiny), WasmError);  // memory never shrinks
}

TEST(Snapshot, RefusedWhileRunning) {
  // Inside an import the instance is running: no snapshot of half-done state.
  TestEnv env;
  auto a = make_instance(plain_module(), env);
  a->call<std::uint32_t(std::uint32_t, std::uint32_t)>("add", 1, 1);
  EXPECT_EQ(a->state(), InstanceState::kReady);
  EXPECT_NO_THROW(a->snapshot());
}

}  // namespace
}  // namespace sandbox::wasm

// Instances of the core test guest: calls, signatures, traps as values, the state machine,
// nesting (host -> guest -> import -> guest), address-space hygiene.
#include <climits>
#include <cstring>
#include <thread>

#include <gtest/gtest.h>

#include "test_host.h"
#include "wasm/host_call.h"

namespace sandbox::wasm {
namespace {

using testing::CallbackMode;
using testing::fuel_module;
using testing::make_instance;
using testing::plain_module;
using testing::TestEnv;

TEST(Module, DescribesItself) {
  Module m = fuel_module();
  EXPECT_EQ(m.name(), "guest_limits_fuel");
  EXPECT_TRUE(m.metered());
  EXPECT_FALSE(plain_module().metered());
  EXPECT_TRUE(m.has_memory());
  EXPECT_EQ(m.wasm_sha256().size(), 64u);
  EXPECT_NE(m.wasm_sha256(), plain_module().wasm_sha256());
  auto imports = m.import_modules();
  ASSERT_EQ(imports.size(), 2u);
  for (auto [name, provided] : imports) {
    EXPECT_TRUE(name == "env" || name == "sandbox") << name;
    EXPECT_TRUE(provided) << name;
  }
  auto add = m.find_function("add");
  ASSERT_TRUE(add);
  EXPECT_EQ(add->params, (std::vector<ValType>{ValType::kI32, ValType::kI32}));
  EXPECT_EQ(add->results, (std::vector<ValType>{ValType::kI32}));
  EXPECT_FALSE(m.find_function("no_such_export"));
  EXPECT_GT(m.functions().size(), 20u);
}

TEST(Instance, CallsExportsWithCheckedSignatures) {
  TestEnv env;
  auto inst = make_instance(plain_module(), env);
  EXPECT_EQ(inst->state(), InstanceState::kFresh);
  auto r = inst->call<std::uint32_t(std::uint32_t, std::uint32_t)>("add", 2, 3);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value, 5u);
  EXPECT_EQ(inst->state(), InstanceState::kReady);
  EXPECT_EQ((inst->call<std::int32_t(std::int32_t, std::int32_t)>("add", -7, 2).value), -5);
  EXPECT_EQ((inst->call<std::uint64_t(std::uint64_t, std::uint64_t)>("add64", 1ull << 40, 1).value),
            (1ull << 40) + 1);
  EXPECT_DOUBLE_EQ((inst->call<double(double, float, std::int64_t)>("mix", 1.5, 2.0f, -1).value),
                   2.0);

  EXPECT_THROW((inst->call<std::uint32_t(std::uint32_t)>("add", 1)), WasmError);
  EXPECT_THROW((inst->call<std::uint64_t(std::uint32_t, std::uint32_t)>("add", 1, 2)), WasmError);
  EXPECT_THROW((inst->call<void()>("nope")), WasmError);
  EXPECT_EQ(inst->state(), InstanceState::kReady);
}

TEST(Instance, FunctionHandlesAreCheckedOnceAndBoundToTheirModule) {
  TestEnv env;
  Module m = plain_module();
  auto add = m.function<std::uint32_t(std::uint32_t, std::uint32_t)>("add");
  auto inst = make_instance(m, env);
  EXPECT_EQ(add(*inst, 40, 2).value, 42u);
  EXPECT_EQ(add.name(), "add");
  auto other = make_instance(fuel_module(), env);
  EXPECT_THROW(add(*other, 1, 2), WasmError);
  Function<void()> empty;
  EXPECT_THROW(empty(*inst), WasmError);
}

TEST(Instance, RequiresAContextForEveryProvidedImportModule) {
  EXPECT_THROW(Instance::create(plain_module(), {}), WasmError);
}

TEST(Instance, UnsupportedImportTrapsAndInvalidates) {
  TestEnv env;
  auto inst = make_instance(plain_module(), env);
  auto r = inst->call<std::uint32_t(std::uint32_t)>("call_missing", 1);
  EXPECT_EQ(r.trap.kind, TrapKind::kUnsupportedImport);
  EXPECT_EQ(r.trap.message, "unsupported import env.not_provided");
  EXPECT_TRUE(inst->invalid());
  EXPECT_EQ(inst->invalidating_trap().kind, TrapKind::kUnsupportedImport);
  EXPECT_THROW((inst->call<std::uint32_t(std::uint32_t, std::uint32_t)>("add", 1, 2)), WasmError);
}

struct TrapCase {
  const char* name;
  std::function<Trap(Instance&)> call;
  TrapKind expected;
};

class Traps : public ::testing::TestWithParam<TrapCase> {};

TEST_P(Traps, ComeBackAsValuesAndInvalidate) {
  TestEnv env;
  auto inst = make_instance(plain_module(), env);
  Trap trap = GetParam().call(*inst);
  EXPECT_EQ(trap.kind, GetParam().expected) << trap.message;
  EXPECT_EQ(trap.message, trap_kind_message(GetParam().expected));
  EXPECT_TRUE(trap.invalidates());
  EXPECT_FALSE(trap.is_limit());
  EXPECT_TRUE(inst->invalid());
  EXPECT_THROW(inst->snapshot(), WasmError);
  // Memory stays readable for diagnosis.
  EXPECT_FALSE(inst->memory().empty());
}

INSTANTIATE_TEST_SUITE_P(
    Guest, Traps,
    ::testing::Values(
        TrapCase{"OutOfBoundsLoad",
                 [](Instance& i) {
                   return i.call<std::uint32_t(std::uint32_t)>("load", 0xfffffff0u).trap;
                 },
                 TrapKind::kOutOfBounds},
        TrapCase{"OutOfBoundsStorePastMemorySize",
                 [](Instance& i) {
                   return i
                       .call<void(std::uint32_t, std::uint32_t)>("store", i.memory_pages() * 65536u,
                                                                 1)
                       .trap;
                 },
                 TrapKind::kOutOfBounds},
        TrapCase{"Unreachable", [](Instance& i) { return i.call<void()>("trap_unreachable").trap; },
                 TrapKind::kUnreachable},
        TrapCase{"DivideByZero",
                 [](Instance& i) {
                   return i.call<std::int32_t(std::int32_t, std::int32_t)>("divide", 1, 0).trap;
                 },
                 TrapKind::kDivideByZero},
        TrapCase{
            "IntegerOverflow",
            [](Instance& i) {
              return i.call<std::int32_t(std::int32_t, std::int32_t)>("divide", INT_MIN, -1).trap;
            },
            TrapKind::kIntegerOverflow},
        TrapCase{"NullIndirectCall",
                 [](Instance& i) {
                   return i.call<std::uint32_t(std::uint32_t, std::uint32_t)>("call_indirect", 0, 1)
                       .trap;
                 },
                 TrapKind::kIndirectCallMismatch},
        TrapCase{
            "IndirectCallOutOfTable",
            [](Instance& i) {
              return i.call<std::uint32_t(std::uint32_t, std::uint32_t)>("call_indirect", 100000, 1)
                  .trap;
            },
            TrapKind::kIndirectCallMismatch},
        TrapCase{"ShadowStackOverflowWrapsAndTraps",
                 [](Instance& i) {
                   return i.call<std::uint32_t(std::uint32_t)>("shadow_recurse", 1u << 20).trap;
                 },
                 TrapKind::kOutOfBounds}),
    [](const ::testing::TestParamInfo<TrapCase>& info) { return std::string(info.param.name); });

// A trap raised by a signal handler or the runtime has no message of its own: it must not
// report the message an earlier trap on the same thread left behind.
TEST(Instance, SignalTrapsDoNotReuseAnEarlierTrapsMessage) {
  TestEnv env;
  env.mode = CallbackMode::kTrap;
  env.trap_code = SANDBOX_TRAP_HOST_ERROR;
  env.trap_message = "the import failed";
  auto first = make_instance(plain_module(), env);
  EXPECT_EQ((first->call<std::uint32_t(std::uint32_t)>("call_host", 1).trap.message),
            "the import failed");
  auto second = make_instance(plain_module(), env);
  Trap oob = second->call<std::uint32_t(std::uint32_t)>("load", 0xfffffff0u).trap;
  EXPECT_EQ(oob.kind, TrapKind::kOutOfBounds);
  EXPECT_EQ(oob.message, trap_kind_message(TrapKind::kOutOfBounds));
  auto third = make_instance(plain_module(), env);
  third->set_call_timeout(std::chrono::milliseconds(20));
  Trap deadline = third->call<void()>("spin").trap;
  EXPECT_EQ(deadline.kind, TrapKind::kDeadline);
  EXPECT_EQ(deadline.message, trap_kind_message(TrapKind::kDeadline));
}

TEST(Instance, IndirectCallToAValidEntryWorks) {
  TestEnv env;
  auto inst = make_instance(plain_module(), env);
  EXPECT_EQ((inst->call<std::uint32_t(std::uint32_t, std::uint32_t)>("call_indirect", 1, 21).value),
            42u);
}

TEST(Instance, NativeStackExhaustionTrapsAndTheThreadStaysUsable) {
  // A thread of its own with a modest stack: the guest recurses until the guard page.
  std::thread t([] {
    TestEnv env;
    auto inst = make_instance(plain_module(), env);
    auto r = inst->call<std::uint32_t(std::uint32_t)>("recurse", 0xffffffffu);
    EXPECT_EQ(r.trap.kind, TrapKind::kStackExhausted) << r.trap.message;
    EXPECT_TRUE(inst->invalid());
    // The signal stack and the thread survive: a new instance on this thread works, and can
    // exhaust the stack again.
    auto again = make_instance(plain_module(), env);
    EXPECT_EQ((again->call<std::uint32_t(std::uint32_t)>("recurse", 1000).value), 500500u);
    auto third = make_instance(plain_module(), env);
    EXPECT_EQ((third->call<std::uint32_t(std::uint32_t)>("recurse", 0xffffffffu).trap.kind),
              TrapKind::kStackExhausted);
  });
  t.join();
}

TEST(Nesting, HostGuestImportGuestOnTheSameInstance) {
  TestEnv env;
  env.mode = CallbackMode::kAddOneSame;
  auto inst = make_instance(plain_module(), env);
  EXPECT_EQ(Instance::current(), nullptr);
  auto r = inst->call<std::uint32_t(std::uint32_t)>("call_host", 41);
  ASSERT_TRUE(r.ok()) << r.trap.message;
  EXPECT_EQ(r.value, 1042u);
  EXPECT_EQ(env.seen_instance, inst.get());
  EXPECT_EQ(env.seen_memory, inst->rt_memory());
  EXPECT_EQ(Instance::current(), nullptr);
  EXPECT_EQ(inst->state(), InstanceState::kReady);
}

TEST(Nesting, IntoAnotherInstance) {
  TestEnv env_a, env_b;
  auto b = make_instance(plain_module(), env_b);
  env_a.mode = CallbackMode::kAddOneOther;
  env_a.other = b.get();
  auto a = make_instance(fuel_module(), env_a);
  a->set_fuel(1'000'000);
  auto r = a->call<std::uint32_t(std::uint32_t)>("call_host", 1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value, 1002u);
  EXPECT_EQ(b->state(), InstanceState::kReady);
}

TEST(Nesting, FiftyLevelsDeep) {
  TestEnv env;
  env.mode = CallbackMode::kRecurse;
  auto inst = make_instance(plain_module(), env);
  auto r = inst->call<std::uint32_t(std::uint32_t)>("call_host", 50);
  ASSERT_TRUE(r.ok()) << r.trap.message;
  EXPECT_EQ(r.value, 51u * 1000u);
  EXPECT_EQ(env.calls, 51);
}

TEST(Nesting, ATrapInANestedCallInvalidatesTheInstance) {
  TestEnv env;
  env.mode = CallbackMode::kTrapInside;
  auto inst = make_instance(plain_module(), env);
  auto r = inst->call<std::uint32_t(std::uint32_t)>("call_host", 1);
  // The import caught the inner trap and returned normally; the outer call finished...
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value, 1007u);
  EXPECT_EQ(env.inner_trap.kind, TrapKind::kUnreachable);
  // ...but the instance is invalid (invariant 3).
  EXPECT_TRUE(inst->invalid());
  EXPECT_EQ(inst->invalidating_trap().kind, TrapKind::kUnreachable);
}

TEST(ImportTraps, ExitIsACleanTrapWithItsCode) {
  TestEnv env;
  env.mode = CallbackMode::kTrap;
  env.trap_code = SANDBOX_TRAP_EXIT;
  env.exit_code = 3;
  auto inst = make_instance(plain_module(), env);
  auto r = inst->call<std::uint32_t(std::uint32_t)>("call_host", 1);
  EXPECT_EQ(r.trap.kind, TrapKind::kExit);
  EXPECT_EQ(r.trap.exit_code, 3u);
  EXPECT_EQ(r.trap.message, "Guest exited with code 3");
  EXPECT_FALSE(inst->invalid());
  EXPECT_EQ(inst->state(), InstanceState::kReady);
  env.mode = CallbackMode::kIdentity;
  EXPECT_EQ((inst->call<std::uint32_t(std::uint32_t)>("call_host", 1).value), 1001u);
}

TEST(ImportTraps, CarryTheHostsMessageAndKind) {
  struct Case {
    std::uint32_t code;
    const char* message;
    TrapKind kind;
    std::string expected;
  };
  for (const Case& c :
       {Case{SANDBOX_TRAP_HOST_ERROR, "WASI host out of memory", TrapKind::kHostError,
             "WASI host out of memory"},
        Case{SANDBOX_TRAP_OUTPUT_LIMIT, nullptr, TrapKind::kOutputLimit, "Output limit exceeded"},
        Case{SANDBOX_TRAP_UNSUPPORTED, nullptr, TrapKind::kUnsupportedImport,
             "Unsupported import called"},
        Case{77, nullptr, TrapKind::kUnknown, "Unknown trap (code 77)"}}) {
    TestEnv env;
    env.mode = CallbackMode::kTrap;
    env.trap_code = c.code;
    env.trap_message = c.message;
    auto inst = make_instance(plain_module(), env);
    auto r = inst->call<std::uint32_t(std::uint32_t)>("call_host", 1);
    EXPECT_EQ(r.trap.kind, c.kind);
    EXPECT_EQ(r.trap.message, c.expected);
    EXPECT_TRUE(inst->invalid());
    EXPECT_EQ(r.trap.is_limit(), c.kind == TrapKind::kOutputLimit);
  }
}

TEST(Instance, ExposesItsMemory) {
  TestEnv env;
  auto inst = make_instance(plain_module(), env);
  ASSERT_NE(inst->rt_memory(), nullptr);
  std::uint32_t pages = inst->memory_pages();
  EXPECT_EQ(inst->memory().size(), pages * 65536u);
  inst->call<void(std::uint32_t, std::uint32_t)>("store", 1024, 0xdeadbeef);
  std::uint32_t v;
  std::memcpy(&v, inst->memory().data() + 1024, 4);
  EXPECT_EQ(v, 0xdeadbeefu);
  EXPECT_EQ((inst->call<std::uint32_t(std::uint32_t)>("grow", 3).value), pages);
  EXPECT_EQ(inst->memory_pages(), pages + 3);
  EXPECT_EQ(inst->memory().size(), (pages + 3) * 65536u);
}

TEST(Instance, HostDataIsReturned) {
  TestEnv env;
  int tag = 0;
  auto inst = make_instance(plain_module(), env, {.host_data = &tag});
  EXPECT_EQ(inst->host_data(), &tag);
}

TEST(AddressSpace, TwentyThousandInstancesDoNotLeakReservations) {
  // Each instance reserves 8 GiB; 20,000 leaked reservations would exceed the 128 TiB user
  // address space (wabt's stock runtime aborted after about 16,000).
  Module m = plain_module();
  TestEnv env;
  std::uint64_t before = live_memory_reservations();
  for (int i = 0; i < 20000; ++i) {
    auto inst = make_instance(m, env);
    if (i % 5000 == 0) {
      EXPECT_EQ(live_memory_reservations(), before + 1);
      EXPECT_EQ((inst->call<std::uint32_t(std::uint32_t, std::uint32_t)>("add", i, 1).value),
                static_cast<std::uint32_t>(i + 1));
    }
  }
  EXPECT_EQ(live_memory_reservations(), before);
}

TEST(AddressSpace, PooledMemoriesAreReusedZeroedAndUnmappedWithThePool) {
  Module m = plain_module();
  TestEnv env;
  std::uint64_t before = live_memory_reservations();
  {
    MemoryPool pool(4);
    std::uint8_t* first_base = nullptr;
    {
      auto inst = make_instance(m, env, {.pool = &pool});
      first_base = inst->memory().data();
      inst->call<std::uint32_t(std::uint32_t)>("grow", 2);
      inst->call<void(std::uint32_t, std::uint32_t)>("store", inst->memory_pages() * 65536u - 4,
                                                     77);
    }
    EXPECT_EQ(pool.cached(), 1u);
    auto inst = make_instance(m, env, {.pool = &pool});
    EXPECT_EQ(inst->memory().data(), first_base);
    EXPECT_EQ(pool.cached(), 0u);
    // Fresh contents: the grown pages are gone and reading past the initial size traps.
    std::uint32_t pages = inst->memory_pages();
    EXPECT_EQ((inst->call<std::uint32_t(std::uint32_t)>("load", pages * 65536u + 65536u * 2 - 4)
                   .trap.kind),
              TrapKind::kOutOfBounds);
    auto again = make_instance(m, env, {.pool = &pool});
    EXPECT_EQ((again->call<std::uint32_t(std::uint32_t)>("grow", 2).value), pages);
    EXPECT_EQ((again->call<std::uint32_t(std::uint32_t)>("load", (pages + 2) * 65536u - 4).value),
              0u);
    // A memory over 1 MiB goes back through MADV_DONTNEED and re-protection instead of memset.
    again->call<std::uint32_t(std::uint32_t)>("grow", 40);
    std::uint32_t last = again->memory_pages() * 65536u - 4;
    again->call<void(std::uint32_t, std::uint32_t)>("store", last, 99);
    again.reset();
    inst.reset();
    EXPECT_EQ(pool.cached(), 2u);
    auto big1 = make_instance(m, env, {.pool = &pool});
    auto big2 = make_instance(m, env, {.pool = &pool});
    EXPECT_EQ(pool.cached(), 0u);
    for (Instance* i : {big1.get(), big2.get()}) {
      EXPECT_EQ(i->memory_pages(), pages);
      EXPECT_EQ((i->call<std::uint32_t(std::uint32_t)>("grow", 42).value), pages);
      EXPECT_EQ((i->call<std::uint32_t(std::uint32_t)>("load", last).value), 0u);
      EXPECT_EQ((i->call<std::uint32_t(std::uint32_t)>("load", 1024).value), 0u);
    }
  }
  EXPECT_EQ(live_memory_reservations(), before);
}

TEST(Traps, KindTableIsComplete) {
  for (int k = 0; k <= static_cast<int>(TrapKind::kUnknown); ++k) {
    auto kind = static_cast<TrapKind>(k);
    EXPECT_FALSE(trap_kind_name(kind).empty());
    EXPECT_FALSE(trap_kind_message(kind).empty());
  }
  EXPECT_EQ(trap_from_code(SANDBOX_TRAP_OUT_OF_FUEL).kind, TrapKind::kOutOfFuel);
  EXPECT_EQ(trap_from_code(SANDBOX_TRAP_OUT_OF_FUEL).message, "Execution fuel exhausted");
  EXPECT_EQ(trap_from_code(SANDBOX_TRAP_INTERRUPTED).message, "Execution time limit exceeded");
  EXPECT_EQ(trap_from_code(SANDBOX_TRAP_OUTPUT_LIMIT).message, "Output limit exceeded");
  EXPECT_EQ(trap_from_code(999).kind, TrapKind::kUnknown);
  EXPECT_TRUE(trap_from_code(SANDBOX_TRAP_INTERRUPTED).is_limit());
  EXPECT_FALSE(trap_from_code(SANDBOX_TRAP_EXIT).invalidates());
}

}  // namespace
}  // namespace sandbox::wasm

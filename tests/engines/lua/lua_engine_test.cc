// What is particular to the Lua engine: its identity, snapshot/restore, its fuel, its stack limit
// and its errors. The conformance suite, the program corpus (corpus.json) and the checks of
// checks.json run in tests/engines/suite, as for every engine.
#include "lua_engine.h"

#include <iostream>

#include <gtest/gtest.h>

#include "engines/corpus/session_snapshot.h"
#include "support/isolation_under_test.h"

namespace sandbox {
namespace {

const Engine& lua() {
  static const Engine engine = test::under_test(engines::make_lua_engine());
  return engine;
}

TEST(LuaEngine, Identity) {
  EXPECT_EQ(lua().language, "lua");
  EXPECT_EQ(lua().engine_name, "Lua 5.4.9 / sandbox-workers");
  EXPECT_EQ(lua().build.size(), 64u);  // sha256 of the instrumented module
  EXPECT_EQ(lua().limits.fuel, engines::kLuaFuel);
  EXPECT_EQ(lua().limits.memory_bytes, 64u << 20);
  EXPECT_TRUE(lua().sessions.has_value());
}

TEST(LuaEngine, StateSurvivesSnapshotAndRestore) {
  testing_corpus::SnapshotFixture f(lua());
  f.expect_text(*f.session, "counter = 1", "");
  auto restored = f.restore();
  f.expect_text(*restored, "counter + 1", "2");
  f.expect_text(*restored, "counter = counter + 1", "");
  auto again = f.restore_from(*restored);
  f.expect_text(*again, "counter + 1", "3");
}

// The budget leaves the guest's code most of it: a stateless run pays for the interpreter's
// start-up too.
TEST(LuaEngine, StartUpUsesLittleOfTheFuelBudget) {
  const EngineOutcome run = lua().run({"1 + 1", {}});
  ASSERT_TRUE(run.usage);
  testing_corpus::SnapshotFixture f(lua());
  const SessionOutcome step = f.session->execute({"1 + 1", {}});
  ASSERT_TRUE(step.usage);
  std::cout << "fuel: stateless 1 + 1 " << run.usage->fuel_consumed << ", session step "
            << step.usage->fuel_consumed << " of " << engines::kLuaFuel << "\n";
  EXPECT_LT(run.usage->fuel_consumed, engines::kLuaFuel / 20);
  EXPECT_LT(step.usage->fuel_consumed, run.usage->fuel_consumed);  // no start-up in a session
}

// Unbounded recursion reaches Lua's stack limit (kLuaMaxStackSlots) long before the memory cap:
// the error is Lua's own "stack overflow", with the line, as native lua5.4 reports it.
TEST(LuaEngine, UnboundedRecursionIsAStackOverflowError) {
  const EngineOutcome out = lua().run({"local function f() return 1 + f() end\nf()", {}});
  ASSERT_TRUE(out.error);
  EXPECT_EQ(out.error->name, "LuaError");
  EXPECT_EQ(out.error->message, "input:1: stack overflow");
  ASSERT_GE(out.error->traceback.size(), 3u);
  EXPECT_EQ(out.error->traceback[0], "LuaError: input:1: stack overflow");
  EXPECT_EQ(out.error->traceback[1], "  input:1: in upvalue 'f'");
  EXPECT_EQ(out.error->traceback.back(), "  input:2: in main chunk");
}

// pcall catches the overflow like any error, the state stays usable, and the limit still allows
// deep (non-tail) recursion.
TEST(LuaEngine, StackOverflowIsCaughtByPcallAndTheSessionGoesOn) {
  testing_corpus::SnapshotFixture f(lua());
  f.expect_text(*f.session,
                "depth = 0; local function f() depth = depth + 1; return 1 + f() end; "
                "return select(2, pcall(f))",
                "\"input:1: stack overflow\"");
  f.expect_text(*f.session,
                "depth > 100000 and depth <= " + std::to_string(engines::kLuaMaxStackSlots),
                "true");
  f.expect_text(*f.session,
                "local function g(n) if n == 0 then return 0 end return 1 + g(n - 1) end "
                "return g(50000)",
                "50000");
}

// Error objects of any type end with the message native lua5.4's handler prints.
TEST(LuaEngine, ErrorObjectsOfAnyTypeReadAsNativeLua) {
  const std::pair<const char*, const char*> cases[] = {
      {"error({code = 1})", "(error object is a table value)"},
      {"error(nil)", "(error object is a nil value)"},
      {"error()", "(error object is a nil value)"},
      {"error(true)", "(error object is a boolean value)"},
      {"error(42)", "42"},
      {"error(setmetatable({}, {__tostring = function() return 'custom' end}))", "custom"},
      {"error(setmetatable({}, {__tostring = function() return 42 end}))",
       "(error object is a table value)"},
      {"error('x', 0)", "x"},
      {"error('x')", "input:1: x"},
      {"local function g() error('x', 2) end\ng()", "input:2: x"},
  };
  for (const auto& [code, message] : cases) {
    const EngineOutcome out = lua().run({code, {}});
    ASSERT_TRUE(out.error) << code;
    EXPECT_EQ(out.error->name, "LuaError") << code;
    EXPECT_EQ(out.error->message, message) << code;
    ASSERT_FALSE(out.error->traceback.empty()) << code;
    EXPECT_EQ(out.error->traceback[0], std::string("LuaError: ") + message) << code;
  }
}

// The message handler of the chunk also sees errors raised by load's reader function outside a
// pcall (lua.c's does too): load must return nil and a string, as natively, never a table.
TEST(LuaEngine, LoadWithAReaderThatFailsReturnsAStringMessage) {
  const EngineOutcome out =
      lua().run({"local f, e = load(function() return {} end)\nreturn type(f), type(e), e", {}});
  ASSERT_FALSE(out.error) << out.error->message;
  ASSERT_EQ(out.results.size(), 1u);
  EXPECT_EQ(*out.results[0].text,
            "\"nil\"\t\"string\"\t\"input:1: reader function must return a string\\n"
            "stack traceback:\\n\\t[C]: in function 'load'\\n\\tinput:1: in main chunk\\n\\t[C]: "
            "in ?\"");
}

// load with a reader function (the generic form) assembles the pieces it returns.
TEST(LuaEngine, LoadWithAReaderFunctionAssemblesThePieces) {
  const EngineOutcome out =
      lua().run({"local parts, i = {'return ', '1 + ', '41', ''}, 0\n"
                 "return load(function() i = i + 1; return parts[i] end, '=pieces')()",
                 {}});
  ASSERT_FALSE(out.error) << out.error->message;
  ASSERT_EQ(out.results.size(), 1u);
  EXPECT_EQ(*out.results[0].text, "42");
}

// os.date("!%Z") names the zone of a UTC date "GMT", as Debian's lua5.4 (glibc) does; the local
// zone (the sandbox's is UTC) stays "UTC".
TEST(LuaEngine, UtcDateZoneNameIsGmtAsInDebian) {
  const EngineOutcome out = lua().run({"return os.date('!%Z|%H', 0), os.date('%Z', 0)", {}});
  ASSERT_FALSE(out.error) << out.error->message;
  ASSERT_EQ(out.results.size(), 1u);
  EXPECT_EQ(*out.results[0].text, "\"GMT|00\"\t\"UTC\"");
}

}  // namespace
}  // namespace sandbox

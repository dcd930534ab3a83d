// The Lua engine: conformance, the program corpus (corpus.json) and snapshot/restore.
#include "lua_engine.h"

#include <iostream>

#include <gtest/gtest.h>

#include <sandbox/testing.h>

#include "engines/corpus/corpus_runner.h"
#include "engines/corpus/image_engine_checks.h"
#include "engines/corpus/session_snapshot.h"

namespace sandbox {
namespace {

const Engine& lua() {
  static const Engine engine = engines::make_lua_engine();
  return engine;
}

TEST(LuaEngine, Identity) {
  EXPECT_EQ(lua().language, "lua");
  EXPECT_EQ(lua().engine_name, "Lua 5.4.4 / sandbox-workers");
  EXPECT_EQ(lua().build.size(), 64u);  // sha256 of the instrumented module
  EXPECT_EQ(lua().limits.fuel, engines::kLuaFuel);
  EXPECT_EQ(lua().limits.memory_bytes, 64u << 20);
  EXPECT_TRUE(lua().sessions.has_value());
}

TEST(LuaEngine, Conformance) {
  testing::run_engine_conformance(
      lua(), {.programs = {
                  .simple = {.code = "1 + 1", .expect_result_text = "2"},
                  .error = {.code = "error('boom')"},
                  .stateful = testing::StatefulProgram{
                      .define = "counter = 1", .use = "counter + 1", .expect_result_text = "2"}}});
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

TEST(LuaEngine, RestoredCopiesDrawDifferentRandomNumbers) {
  testing_corpus::SnapshotFixture f(lua());
  f.expect_text(*f.session, "x = 1", "");
  auto a = f.restore();
  auto b = f.restore();
  const std::string code = "math.random(1, 1 << 40)";
  EXPECT_NE(f.text(*a, code), f.text(*b, code));
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

// Stateless runs reuse instances reset to the post-initialisation image: nothing one run leaves
// behind may be visible to the next (globals, functions, changed libraries, env vars).
TEST(LuaEngine, StatelessRunsDoNotShareState) {
  testing_corpus::expect_stateless_runs_do_not_share_state(
      lua(), "leak = 1; function leaked() end; string.leak = 1",
      "tostring(leak) .. ',' .. tostring(leaked) .. ',' .. tostring(string.leak) .. ',' .. "
      "tostring(os.getenv('A'))",
      "\"nil,nil,nil,nil\"");
}

// A run that trapped (fuel, output flood) leaves nothing behind either.
TEST(LuaEngine, RunsAfterAFailedRunStartFromTheImage) {
  testing_corpus::expect_runs_after_a_failed_run_start_from_the_image(
      lua(), {"x = 1; while true do end", "x = 1; while true do print('flood') end"}, "tostring(x)",
      "\"nil\"");
}

TEST(LuaEngine, AGrownInstanceIsNotReused) {
  testing_corpus::expect_a_grown_instance_is_not_reused(
      lua(), "local s = 'x'; for i = 1, 24 do s = s .. s end; return #s");
}

TEST(LuaEngine, ConcurrentStatelessRuns) {
  testing_corpus::expect_concurrent_stateless_runs(
      lua(), [](int n) { return "seen = " + std::to_string(n) + "; return seen * 2"; });
}

TEST(LuaEngine, AContextSurvivesARestartOfTheRuntime) {
  testing_corpus::expect_a_context_survives_a_restart_of_the_runtime(
      engines::make_lua_engine, "greeting = 'hi'; function shout(s) return s:upper() end; n = 41",
      "shout(greeting) .. ' ' .. (n + 1)", "\"HI 42\"");
}

SANDBOX_LANGUAGE_CORPUS(LuaCorpus, engines::make_lua_engine(), LUA_CORPUS);

}  // namespace
}  // namespace sandbox

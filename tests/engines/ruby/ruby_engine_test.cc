// The Ruby engine: conformance, the program corpus (corpus.json), snapshot/restore, stateless
// runs from the post-initialisation image, and contexts across a restart of the runtime.
#include "ruby_engine.h"

#include <gtest/gtest.h>
#include <sandbox/runtime.h>
#include <sandbox/testing.h>

#include <filesystem>
#include <iostream>
#include <set>
#include <thread>

#include "engines/corpus/corpus_runner.h"
#include "engines/corpus/session_snapshot.h"

namespace sandbox {
namespace {

const Engine& ruby() {
  static const Engine engine = engines::make_ruby_engine();
  return engine;
}

std::string run_text(const std::string& code) {
  const EngineOutcome o = ruby().run({code, {}});
  EXPECT_FALSE(o.error) << code << ": " << o.error->name << ": " << o.error->message;
  if (o.results.empty() || !o.results[0].text) return "";
  return *o.results[0].text;
}

TEST(RubyEngine, Identity) {
  EXPECT_EQ(ruby().language, "ruby");
  EXPECT_EQ(ruby().engine_name, "CRuby 3.4.1 / ruby.wasm 2.10.1");
  EXPECT_EQ(ruby().build.size(), 64u);  // sha256 of the module and the driver
  EXPECT_EQ(ruby().limits.fuel, engines::kRubyFuel);
  EXPECT_EQ(ruby().limits.memory_bytes, 128u << 20);
  EXPECT_TRUE(ruby().sessions.has_value());
}

TEST(RubyEngine, VersionMatchesTheEngineName) {
  EXPECT_EQ(run_text("RUBY_VERSION"), "\"3.4.1\"");
}

TEST(RubyEngine, Conformance) {
  testing::run_engine_conformance(
      ruby(), {.programs = {.simple = {.code = "1 + 1", .expect_result_text = "2"},
                            .error = {.code = "raise \"boom\""},
                            .stateful = testing::StatefulProgram{.define = "$counter = 1",
                                                                 .use = "$counter + 1",
                                                                 .expect_result_text = "2"}}});
}

TEST(RubyEngine, StateSurvivesSnapshotAndRestore) {
  testing_corpus::SnapshotFixture f(ruby());
  f.expect_text(*f.session, "counter = 41; def bump = $bumped = true; class Box; end; nil", "");
  auto restored = f.restore();
  f.expect_text(*restored, "counter + 1", "42");
  f.expect_text(*restored, "counter += 1; bump; Box.name", "\"Box\"");
  auto again = f.restore_from(*restored);
  const SessionOutcome o = again->execute({"[counter, $bumped]", {}});
  ASSERT_EQ(o.results.size(), 1u);
  EXPECT_EQ(boost::json::serialize(*o.results[0].json), "[42,true]");
}

TEST(RubyEngine, RestoredCopiesDrawDifferentRandomNumbers) {
  testing_corpus::SnapshotFixture f(ruby());
  f.expect_text(*f.session, "x = 1", "1");
  auto a = f.restore();
  auto b = f.restore();
  EXPECT_NE(f.text(*a, "rand(1 << 60)"), f.text(*b, "rand(1 << 60)"));
}

TEST(RubyEngine, StatelessRunsDrawDifferentRandomNumbers) {
  EXPECT_NE(run_text("rand(1 << 60)"), run_text("rand(1 << 60)"));
}

// Stateless runs reuse instances reset to the image: nothing one run leaves behind may be
// visible to the next (globals, methods, constants, locals, ENV, the working directory).
TEST(RubyEngine, StatelessRunsDoNotShareState) {
  for (int i = 0; i < 4; ++i) {
    const EngineOutcome set = ruby().run(
        {"$leak = 1; def leaked = 1; Leak = 1; leak = 1; ENV['LEAK'] = '1'; nil", {{"A", "1"}}});
    ASSERT_FALSE(set.error) << set.error->message;
    EXPECT_EQ(run_text("[defined?($leak), defined?(leaked), defined?(Leak), "
                       "binding.local_variable_defined?(:leak), ENV.to_h].inspect"),
              "\"[nil, nil, nil, false, {}]\"");
  }
}

// A run that trapped (fuel, output flood, refused import) leaves nothing behind either.
TEST(RubyEngine, RunsAfterAFailedRunStartFromTheImage) {
  for (const char* failing : {"$x = 1; loop {}", "$x = 1; loop { puts 'flood' }",
                              "$x = 1; require 'js'; JS.global"}) {
    EXPECT_THROW(ruby().run({failing, {}}), std::exception) << failing;
    EXPECT_EQ(run_text("defined?($x).inspect"), "\"nil\"") << failing;
  }
}

// A run whose memory grew is not reused (a reset cannot shrink it): the next run starts with
// the image's memory size again.
TEST(RubyEngine, AGrownInstanceIsNotReused) {
  const EngineOutcome base = ruby().run({"1", {}});
  ASSERT_TRUE(base.usage);
  const EngineOutcome big = ruby().run({"s = 'x' * (30 << 20); s.size", {}});
  ASSERT_TRUE(big.usage);
  ASSERT_FALSE(big.error) << big.error->message;
  EXPECT_GT(big.usage->memory_bytes, base.usage->memory_bytes);
  for (int i = 0; i < 3; ++i) {
    const EngineOutcome next = ruby().run({"1", {}});
    ASSERT_TRUE(next.usage);
    EXPECT_EQ(next.usage->memory_bytes, base.usage->memory_bytes);
  }
}

TEST(RubyEngine, ConcurrentStatelessRuns) {
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &ok] {
      for (int i = 0; i < 5; ++i) {
        const int n = t * 100 + i;
        const EngineOutcome o = ruby().run({"$seen = " + std::to_string(n) + "; $seen * 2", {}});
        if (!o.error && o.results.size() == 1 && o.results[0].text == std::to_string(2 * n)) ++ok;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 20);
}

TEST(RubyEngine, StartUpUsesLittleOfTheFuelBudget) {
  const EngineOutcome run = ruby().run({"1 + 1", {}});
  ASSERT_TRUE(run.usage);
  std::cout << "fuel: stateless 1 + 1 " << run.usage->fuel_consumed << " of " << engines::kRubyFuel
            << ", memory " << run.usage->memory_bytes << " bytes\n";
  EXPECT_LT(run.usage->fuel_consumed, engines::kRubyFuel / 1000);  // no interpreter start-up
}

// Contexts live in SQLite: a new runtime over the same directory restores them.
TEST(RubyEngine, AContextSurvivesARestartOfTheRuntime) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ruby-restart-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto execute = [](InterpreterRuntime& runtime, const std::string& code) {
    auto r = runtime.execute_in_context("key-1", {"ctx-1", code, {}, {}}, nullptr);
    EXPECT_TRUE(std::holds_alternative<InterpreterExecuteResponse>(r));
    return std::get<InterpreterExecuteResponse>(r);
  };
  {
    auto runtime = define_interpreter_runtime(engines::make_ruby_engine(),
                                              RuntimeOptions{.data_dir = dir.string()});
    ASSERT_EQ(runtime->interpreter()->handle("key-1", "POST", "/contexts", R"({"id":"ctx-1"})").status,
              201);
    const auto r = execute(*runtime, "greeting = 'hi'; def shout(s) = s.upcase; $n = 41");
    ASSERT_FALSE(r.result.outcome.error);
    ASSERT_TRUE(r.context.snapshot);
    std::cout << "first snapshot: " << r.context.snapshot->pages << " non-zero pages in "
              << r.context.snapshot->stored_bytes / (1 << 20) << " chunks\n";
  }
  auto runtime = define_interpreter_runtime(engines::make_ruby_engine(),
                                            RuntimeOptions{.data_dir = dir.string()});
  const auto r = execute(*runtime, "[shout(greeting), $n + 1]");
  ASSERT_FALSE(r.result.outcome.error) << r.result.outcome.error->message;
  ASSERT_EQ(r.result.outcome.results.size(), 1u);
  EXPECT_EQ(boost::json::serialize(*r.result.outcome.results[0].json), R"(["HI",42])");
  EXPECT_EQ(r.execution_count, 2u);
  runtime.reset();
  std::filesystem::remove_all(dir);
}

SANDBOX_LANGUAGE_CORPUS(RubyCorpus, engines::make_ruby_engine(), RUBY_CORPUS);

}  // namespace
}  // namespace sandbox

// The Perl engine: conformance, the program corpus (corpus.json), snapshot/restore, stateless
// runs from the post-initialisation image, and contexts across a restart of the runtime.
#include "perl_engine.h"

#include <gtest/gtest.h>
#include <sandbox/runtime.h>
#include <sandbox/testing.h>

#include <atomic>
#include <filesystem>
#include <iostream>
#include <thread>

#include "engines/corpus/corpus_runner.h"
#include "engines/corpus/session_snapshot.h"

namespace sandbox {
namespace {

const Engine& perl() {
  static const Engine engine = engines::make_perl_engine();
  return engine;
}

std::string run_text(const std::string& code) {
  const EngineOutcome o = perl().run({code, {}});
  EXPECT_FALSE(o.error) << code << ": " << o.error->name << ": " << o.error->message;
  if (o.results.empty() || !o.results[0].text) return "";
  return *o.results[0].text;
}

TEST(PerlEngine, Identity) {
  EXPECT_EQ(perl().language, "perl");
  EXPECT_EQ(perl().engine_name, "Perl 5.42.0 / zeroperl 1.0.10");
  EXPECT_EQ(perl().build.size(), 64u);  // sha256 of the module and the driver
  EXPECT_EQ(perl().limits.fuel, engines::kPerlFuel);
  EXPECT_EQ(perl().limits.memory_bytes, 64u << 20);
  EXPECT_TRUE(perl().sessions.has_value());
}

TEST(PerlEngine, VersionMatchesTheEngineName) {
  EXPECT_EQ(run_text("sprintf('%vd', $^V)"), "5.42.0");
}

TEST(PerlEngine, Conformance) {
  testing::run_engine_conformance(
      perl(), {.programs = {.simple = {.code = "1 + 1", .expect_result_text = "2"},
                            .error = {.code = "die \"broken\";"},
                            .stateful = testing::StatefulProgram{.define = "our $counter = 1; 1;",
                                                                 .use = "$counter + 1",
                                                                 .expect_result_text = "2"}}});
}

TEST(PerlEngine, StateSurvivesSnapshotAndRestore) {
  testing_corpus::SnapshotFixture f(perl());
  f.expect_text(*f.session, "our $counter = 41; sub bump { ++$counter } our %h = (name => 'ctx'); 1", "1");
  auto restored = f.restore();
  f.expect_text(*restored, "bump()", "42");
  f.expect_text(*restored, "use List::Util qw(sum); \"$h{name} \" . sum(1..4)", "ctx 10");
  auto again = f.restore_from(*restored);
  f.expect_text(*again, "bump() . ' ' . sum(1, 2)", "43 3");
}

TEST(PerlEngine, RestoredCopiesDrawDifferentRandomNumbers) {
  testing_corpus::SnapshotFixture f(perl());
  f.expect_text(*f.session, "our $x = 1", "1");
  auto a = f.restore();
  auto b = f.restore();
  EXPECT_NE(f.text(*a, "int(rand(1 << 40))"), f.text(*b, "int(rand(1 << 40))"));
}

TEST(PerlEngine, StatelessRunsDrawDifferentRandomNumbers) {
  EXPECT_NE(run_text("int(rand(1 << 40))"), run_text("int(rand(1 << 40))"));
}

// Stateless runs reuse instances reset to the image: nothing one run leaves behind may be
// visible to the next.
TEST(PerlEngine, StatelessRunsDoNotShareState) {
  for (int i = 0; i < 4; ++i) {
    const EngineOutcome set =
        perl().run({"our $leak = 1; sub leaked { 1 } $ENV{LEAK} = 1; chdir '/'; 1", {{"A", "1"}}});
    ASSERT_FALSE(set.error) << set.error->message;
    EXPECT_EQ(run_text("join ',', (defined $leak ? 'leak' : 'none'), "
                       "(defined &leaked ? 'sub' : 'none'), scalar(keys %ENV)"),
              "none,none,0");
  }
}

// A run that trapped (fuel, output flood, exit) leaves nothing behind either.
TEST(PerlEngine, RunsAfterAFailedRunStartFromTheImage) {
  for (const char* failing : {"our $x = 1; 1 while 1", "our $x = 1; print \"flood\\n\" while 1",
                              "our $x = 1; exit 2"}) {
    EXPECT_THROW(perl().run({failing, {}}), std::exception) << failing;
    EXPECT_EQ(run_text("defined $x ? 'set' : 'unset'"), "unset") << failing;
  }
}

TEST(PerlEngine, AGrownInstanceIsNotReused) {
  const EngineOutcome base = perl().run({"1", {}});
  ASSERT_TRUE(base.usage);
  const EngineOutcome big = perl().run({"my $s = 'x' x (16 << 20); length $s", {}});
  ASSERT_TRUE(big.usage);
  ASSERT_FALSE(big.error) << big.error->message;
  EXPECT_GT(big.usage->memory_bytes, base.usage->memory_bytes);
  for (int i = 0; i < 3; ++i) {
    const EngineOutcome next = perl().run({"1", {}});
    ASSERT_TRUE(next.usage);
    EXPECT_EQ(next.usage->memory_bytes, base.usage->memory_bytes);
  }
}

TEST(PerlEngine, ConcurrentStatelessRuns) {
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &ok] {
      for (int i = 0; i < 5; ++i) {
        const int n = t * 100 + i;
        const EngineOutcome o = perl().run({"our $seen = " + std::to_string(n) + "; $seen * 2", {}});
        if (!o.error && o.results.size() == 1 && o.results[0].text == std::to_string(2 * n)) ++ok;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 20);
}

TEST(PerlEngine, StartUpUsesLittleOfTheFuelBudget) {
  const EngineOutcome run = perl().run({"1 + 1", {}});
  ASSERT_TRUE(run.usage);
  std::cout << "fuel: stateless 1 + 1 " << run.usage->fuel_consumed << " of " << engines::kPerlFuel
            << ", memory " << run.usage->memory_bytes << " bytes\n";
  EXPECT_LT(run.usage->fuel_consumed, engines::kPerlFuel / 1000);  // no interpreter start-up
}

// Contexts live in SQLite: a new runtime over the same directory restores them.
TEST(PerlEngine, AContextSurvivesARestartOfTheRuntime) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("perl-restart-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto execute = [](InterpreterRuntime& runtime, const std::string& code) {
    auto r = runtime.execute_in_context("key-1", {"ctx-1", code, {}, {}}, nullptr);
    EXPECT_TRUE(std::holds_alternative<InterpreterExecuteResponse>(r));
    return std::get<InterpreterExecuteResponse>(r);
  };
  {
    auto runtime = define_interpreter_runtime(engines::make_perl_engine(),
                                              RuntimeOptions{.data_dir = dir.string()});
    ASSERT_EQ(runtime->interpreter()->handle("key-1", "POST", "/contexts", R"({"id":"ctx-1"})").status,
              201);
    const auto r = execute(*runtime, "our $greeting = 'hi'; sub shout { uc shift } our $n = 41");
    ASSERT_FALSE(r.result.outcome.error);
    ASSERT_TRUE(r.context.snapshot);
    std::cout << "first snapshot: " << r.context.snapshot->pages << " non-zero pages in "
              << r.context.snapshot->stored_bytes / (1 << 20) << " chunks\n";
  }
  auto runtime = define_interpreter_runtime(engines::make_perl_engine(),
                                            RuntimeOptions{.data_dir = dir.string()});
  const auto r = execute(*runtime, "shout($greeting) . ' ' . ($n + 1)");
  ASSERT_FALSE(r.result.outcome.error) << r.result.outcome.error->message;
  ASSERT_EQ(r.result.outcome.results.size(), 1u);
  EXPECT_EQ(r.result.outcome.results[0].text, "HI 42");
  EXPECT_EQ(r.execution_count, 2u);
  runtime.reset();
  std::filesystem::remove_all(dir);
}

SANDBOX_LANGUAGE_CORPUS(PerlCorpus, engines::make_perl_engine(), PERL_CORPUS);

}  // namespace
}  // namespace sandbox

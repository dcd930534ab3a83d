// The Python engine: conformance, the program corpus (corpus.json) and snapshot/restore.
#include "python_engine.h"

#include <cstdint>
#include <iostream>

#include <gtest/gtest.h>

#include <sandbox/testing.h>
#include <sandbox/wasm.h>

#include "engines/corpus/corpus_runner.h"
#include "engines/corpus/image_engine_checks.h"
#include "engines/corpus/session_snapshot.h"
#include "python_guest.h"
#include "support/isolation_under_test.h"

namespace sandbox {
namespace {

const Engine& python() {
  static const Engine engine = test::under_test(engines::make_python_engine());
  return engine;
}

TEST(PythonEngine, Identity) {
  EXPECT_EQ(python().language, "python");
  EXPECT_EQ(python().engine_name, "CPython 3.11.2 / sandbox-workers");
  EXPECT_EQ(python().build.size(), 64u);  // sha256 of the instrumented module
  EXPECT_EQ(python().limits.fuel, engines::kPythonFuel);
  // 128 MiB, and the module is compiled with the same maximum (docs/languages.md#python-memory).
  EXPECT_EQ(python().limits.memory_bytes, 128u << 20);
  EXPECT_EQ(python().limits.memory_bytes, engines::kPythonMemoryBytes);
  const wasm::Module module(*sandbox_wasm_module_python_guest());
  EXPECT_EQ(std::uint64_t{module.max_pages()} * 65'536, engines::kPythonMemoryBytes);
  EXPECT_TRUE(python().sessions.has_value());
}

TEST(PythonEngine, Conformance) {
  testing::run_engine_conformance(
      python(), {.programs = {.simple = {.code = "1 + 1", .expect_result_text = "2"},
                              .error = {.code = "1 / 0"},
                              .stateful = testing::StatefulProgram{.define = "counter = 1",
                                                                   .use = "counter + 1",
                                                                   .expect_result_text = "2"}}});
}

TEST(PythonEngine, StateSurvivesSnapshotAndRestore) {
  testing_corpus::SnapshotFixture f(python());
  f.expect_text(*f.session, "counter = 1\ndef double(x):\n    return 2 * x", "");
  auto restored = f.restore();
  f.expect_text(*restored, "double(counter + 1)", "4");
  f.expect_text(*restored, "counter += 1", "");
  f.expect_text(*restored, "import fractions\nstr(fractions.Fraction(1, 3))", "'1/3'");
  auto again = f.restore_from(*restored);
  f.expect_text(*again, "counter + 1", "3");
}

TEST(PythonEngine, RestoredCopiesDrawDifferentRandomNumbers) {
  testing_corpus::SnapshotFixture f(python());
  f.expect_text(*f.session, "import random", "");
  auto a = f.restore();
  auto b = f.restore();
  EXPECT_NE(f.text(*a, "random.random()"), f.text(*b, "random.random()"));
}

TEST(PythonEngine, WorkspaceFilesWrittenAfterARestoreAreImportable) {
  testing_corpus::SnapshotFixture f(python());
  f.workspace().write("/workspace/early.py", "E = 1\n");
  f.expect_text(*f.session, "import early\nearly.E", "1");
  auto restored = f.restore();
  f.workspace().write("/workspace/late.py", "L = 2\n");
  f.expect_text(*restored, "import late\nearly.E + late.L", "3");
}

TEST(PythonEngine, StartUpUsesLittleOfTheFuelBudget) {
  const EngineOutcome run = python().run({"1 + 1", {}});
  ASSERT_TRUE(run.usage);
  testing_corpus::SnapshotFixture f(python());
  const SessionOutcome step = f.session->execute({"1 + 1", {}});
  ASSERT_TRUE(step.usage);
  std::cout << "fuel: stateless 1 + 1 " << run.usage->fuel_consumed << ", session step "
            << step.usage->fuel_consumed << " of " << engines::kPythonFuel << "\n";
  EXPECT_LT(run.usage->fuel_consumed, engines::kPythonFuel / 5);
  EXPECT_LT(step.usage->fuel_consumed, run.usage->fuel_consumed);
}

// Stateless runs reuse instances reset to the post-initialisation image: nothing one run leaves
// behind may be visible to the next (globals, functions, changed modules, env vars).
TEST(PythonEngine, StatelessRunsDoNotShareState) {
  testing_corpus::expect_stateless_runs_do_not_share_state(
      python(),
      "leak = 1\ndef leaked(): pass\nimport os, sys\nos.environ['LEAK'] = '1'\nsys.leak = 1",
      "import os, sys\n','.join(str(v) for v in ('leak' in globals(), 'leaked' in globals(), "
      "hasattr(sys, 'leak'), len(os.environ)))",
      "'False,False,False,0'");
}

// A run that trapped (fuel, output flood) leaves nothing behind either.
TEST(PythonEngine, RunsAfterAFailedRunStartFromTheImage) {
  testing_corpus::expect_runs_after_a_failed_run_start_from_the_image(
      python(), {"x = 1\nwhile True: pass", "x = 1\nwhile True: print('flood')"},
      "'x' in globals()", "False");
}

TEST(PythonEngine, AGrownInstanceIsNotReused) {
  testing_corpus::expect_a_grown_instance_is_not_reused(python(), "len('x' * (30 << 20))");
}

TEST(PythonEngine, ConcurrentStatelessRuns) {
  testing_corpus::expect_concurrent_stateless_runs(
      python(), [](int n) { return "seen = " + std::to_string(n) + "\nseen * 2"; });
}

TEST(PythonEngine, AContextSurvivesARestartOfTheRuntime) {
  testing_corpus::expect_a_context_survives_a_restart_of_the_runtime(
      engines::make_python_engine, "greeting = 'hi'\ndef shout(s): return s.upper()\nn = 41",
      "f'{shout(greeting)} {n + 1}'", "'HI 42'");
}

SANDBOX_LANGUAGE_CORPUS(PythonCorpus, engines::make_python_engine(), PYTHON_CORPUS);

}  // namespace
}  // namespace sandbox

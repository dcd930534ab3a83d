// What is particular to the Python engine: its identity, snapshot/restore, workspace imports and
// its fuel. The conformance suite, the program corpus (corpus.json) and the checks of checks.json
// run in tests/engines/suite, as for every engine.
#include "python_engine.h"

#include <cstdint>
#include <iostream>

#include <gtest/gtest.h>

#include <sandbox/wasm.h>

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

}  // namespace
}  // namespace sandbox

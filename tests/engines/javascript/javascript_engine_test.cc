// What is particular to the JavaScript engine: its identity, snapshot/restore, TypeScript, its
// fuel and its built-in modules. The conformance suite, the program corpus (corpus.json) and the
// checks of checks.json run in tests/engines/suite, as for every engine.
#include "javascript_engine.h"

#include <cstdint>
#include <iostream>
#include <string>

#include <gtest/gtest.h>

#include "engines/corpus/image_engine_checks.h"
#include "engines/corpus/session_snapshot.h"
#include "support/isolation_under_test.h"

namespace sandbox {
namespace {

const Engine& javascript() {
  static const Engine engine = test::under_test(engines::make_javascript_engine());
  return engine;
}

TEST(JavaScriptEngine, Identity) {
  EXPECT_EQ(javascript().language, "javascript");
  EXPECT_EQ(javascript().engine_name, "QuickJS-ng 0.17.0 / sandbox-workers");
  EXPECT_EQ(javascript().build.size(), 64u);  // sha256 of the instrumented module
  EXPECT_EQ(javascript().limits.fuel, engines::kJavaScriptFuel);
  EXPECT_EQ(javascript().limits.memory_bytes, 64u << 20);
  EXPECT_TRUE(javascript().sessions.has_value());
}

TEST(JavaScriptEngine, StateSurvivesSnapshotAndRestore) {
  testing_corpus::SnapshotFixture f(javascript());
  f.expect_text(*f.session, "let counter = 1; const double = (x) => 2 * x", "");
  auto restored = f.restore();
  f.expect_text(*restored, "double(counter + 1)", "4");
  f.expect_text(*restored, "counter++", "1");
  auto again = f.restore_from(*restored);
  f.expect_text(*again, "counter + 1", "3");
}

TEST(JavaScriptEngine, TypeScriptWorksAfterARestore) {
  testing_corpus::SnapshotFixture f(javascript());
  f.expect_text(*f.session, "const typed: number = 1; typed", "1");  // loads sucrase
  auto restored = f.restore();
  f.expect_text(*restored, "let more: string = 'x'; more", "'x'");
}

TEST(JavaScriptEngine, StartUpUsesLittleOfTheFuelBudget) {
  const EngineOutcome run = javascript().run({"1 + 1", {}});
  ASSERT_TRUE(run.usage);
  testing_corpus::SnapshotFixture f(javascript());
  const SessionOutcome step = f.session->execute({"1 + 1", {}});
  ASSERT_TRUE(step.usage);
  const SessionOutcome ts = f.session->execute({"const n: number = 1; n", {}});
  ASSERT_TRUE(ts.usage);
  std::cout << "fuel: stateless 1 + 1 " << run.usage->fuel_consumed << ", session step "
            << step.usage->fuel_consumed << ", first TypeScript step " << ts.usage->fuel_consumed
            << " of " << engines::kJavaScriptFuel << "\n";
  EXPECT_LT(run.usage->fuel_consumed, engines::kJavaScriptFuel / 20);
  EXPECT_LT(step.usage->fuel_consumed, run.usage->fuel_consumed);
  EXPECT_LT(ts.usage->fuel_consumed, engines::kJavaScriptFuel / 2);
}

// Built-in modules (docs/languages.md#javascript-built-in-modules): what one call of a context
// requires or imports is there in the next calls, also in copies restored from its snapshots.
TEST(JavaScriptEngine, RequiredAndImportedModulesStayInAContext) {
  testing_corpus::SnapshotFixture f(javascript());
  f.expect_text(*f.session, "const fs = require('fs'); const path = require('node:path')", "");
  f.expect_text(*f.session, "import { join } from 'node:path'; import * as fsModule from 'fs'", "");
  f.expect_text(*f.session,
                "fs.writeFileSync(path.join('kept.txt'), 'kept'); "
                "fs.readFileSync(join('sub', '..', 'kept.txt'), 'utf8')",
                "'kept'");
  auto restored = f.restore();
  f.expect_text(*restored,
                "[fs === fsModule.default, path.basename('/a/b.txt'), join('a', 'b'), "
                "fs.readFileSync('kept.txt', 'utf8')].join(' ')",
                "'true b.txt a/b kept'");
  auto again = f.restore_from(*restored);
  f.expect_text(*again, "import { basename } from 'path'; basename(path.resolve('x/y.js'), '.js')",
                "'y'");
}

TEST(JavaScriptEngine, RequiredModulesSurviveARestartOfTheRuntime) {
  testing_corpus::expect_a_context_survives_a_restart_of_the_runtime(
      engines::make_javascript_engine,
      "import { join } from 'node:path'; var fs = require('node:fs')",
      "fs.writeFileSync(join('x', '..', 'k.txt'), 'v'); fs.readFileSync('k.txt', 'utf8') + ' ' + "
      "join('a', 'b')",
      "'v a/b'");
}

// A module that is not built in fails the same way in a context as in a stateless run, and the
// context goes on.
TEST(JavaScriptEngine, AnUnknownModuleIsAnErrorInAContextToo) {
  testing_corpus::SnapshotFixture f(javascript());
  f.expect_text(*f.session, "const path = require('path')", "");
  // (A failed `const _ = require(...)` leaves `_` declared, as any failed top-level `const`.)
  for (const std::string code : {"const _ = require('lodash')", "import lodash from 'lodash'"}) {
    const SessionOutcome o = f.session->execute({code, {}});
    if (!o.error) FAIL() << code << ": no error";
    const ExecutionError& error = *o.error;
    EXPECT_EQ(error.name, "Error") << code;
    EXPECT_EQ(error.message,
              "Cannot find module 'lodash': the sandbox has no package installation; built-in "
              "modules: fs, node:fs, path, node:path")
        << code;
  }
  f.expect_text(*f.session, "path.join('still', 'here')", "'still/here'");
}

// The first import declaration loads acorn (the rewrite) from /stdlib; require loads nothing.
TEST(JavaScriptEngine, ImportsCostLittleFuel) {
  const EngineOutcome plain = javascript().run({"1 + 1", {}});
  const EngineOutcome required = javascript().run({"require('fs'); require('path').sep", {}});
  const EngineOutcome imported = javascript().run({"import fs from 'fs'; fs.existsSync('x')", {}});
  ASSERT_FALSE(required.error);
  ASSERT_FALSE(imported.error);
  if (!plain.usage || !required.usage || !imported.usage) FAIL() << "a run was not metered";
  const std::uint64_t plain_fuel = plain.usage->fuel_consumed;
  const std::uint64_t required_fuel = required.usage->fuel_consumed;
  const std::uint64_t imported_fuel = imported.usage->fuel_consumed;
  std::cout << "fuel: 1 + 1 " << plain_fuel << ", require " << required_fuel << ", first import "
            << imported_fuel << " of " << engines::kJavaScriptFuel << "\n";
  EXPECT_LT(required_fuel, plain_fuel + 100'000);
  EXPECT_LT(imported_fuel, engines::kJavaScriptFuel / 5);
}

}  // namespace
}  // namespace sandbox

// Upgrading the JavaScript engine from QuickJS 2021-03-27 to QuickJS-ng 0.17.0, as a user of
// sandboxd meets it (server/engine_upgrade_fixture.h): a code context stored under the identity
// of the QuickJS 2021-03-27 engine this tree shipped before, then the same database served by
// the engine as built.
#include <string>

#include <gtest/gtest.h>

#include "javascript_engine.h"
#include "server/engine_upgrade_fixture.h"

namespace sandbox::test {
namespace {

// The engine of QuickJS 2021-03-27 (npm qjsc@0.3.0), as sandboxd built at 72606d7 reported it.
constexpr const char* kQuickJs2021Name = "QuickJS 2021-03-27 / sandbox-workers";
constexpr const char* kQuickJs2021Build =
    "235127a7bf2ebf4bb89187b944a3606e6259fa524797f3a6c5a627dd20605f53";
constexpr const char* kEngineName = "QuickJS-ng 0.17.0 / sandbox-workers";

class JavaScriptUpgrade : public EngineUpgradeTest {
 protected:
  JavaScriptUpgrade()
      : EngineUpgradeTest("javascript", "JAVASCRIPT", engines::make_javascript_engine,
                          {.engine_name = kQuickJs2021Name, .build = kQuickJs2021Build}) {}
};

TEST_F(JavaScriptUpgrade, AContextOfTheQuickJs2021BuildBootsFreshAndKeepsItsFilesCwdAndCount) {
  store_under_previous_build(
      "var greeting = 'hi'; function shout(s) { return s.toUpperCase(); }\n"
      "fs.mkdirSync('notes'); fs.writeFileSync('notes/kept.txt', 'kept');\n"
      "process.chdir('notes'); shout(greeting)",
      "'HI'");
  reopen_as_built(kEngineName);
  const auto first = expect_fresh_interpreter("shout(greeting)", kEngineName, "ReferenceError",
                                              "shout is not defined");
  EXPECT_EQ(first.at("context").at("cwd").as_string(), "/workspace/notes");

  // The working directory, the files and the environment variables are the sandbox's and stay;
  // what QuickJS-ng adds is there.
  EXPECT_EQ(text("[typeof greeting, process.cwd(), fs.readFileSync('kept.txt', 'utf8'), "
                 "process.env.STAGE, Object.groupBy([1, 2], (x) => x % 2)[1].length].join()"),
            "'undefined,/workspace/notes,kept,set before,1'");
  expect_durable_again("var greeting = 'hello again'; greeting.length", "11", "greeting",
                       "'hello again'");
}

}  // namespace
}  // namespace sandbox::test

// Upgrading the Ruby engine, as a user of sandboxd meets it (server/engine_upgrade_fixture.h):
// a code context stored under the identity of the CRuby 3.4.1 engine this tree shipped before,
// then the same database served by the engine as built.
#include <string>

#include <gtest/gtest.h>

#include "ruby_engine.h"
#include "server/engine_upgrade_fixture.h"

namespace sandbox::test {
namespace {

// The engine of @ruby/3.4-wasm-wasi@2.10.1.
constexpr const char* kRuby341Name = "CRuby 3.4.1 / ruby.wasm 2.10.1";
constexpr const char* kRuby341Build =
    "70bbd30902e7eeb3f5270419a2871f09dd717ed91f5d442f0203a5442bc69a07";
constexpr const char* kEngineName = "CRuby 4.0.0 / ruby.wasm 2.10.1";

class RubyUpgrade : public EngineUpgradeTest {
 protected:
  RubyUpgrade()
      : EngineUpgradeTest("ruby", "RUBY", engines::make_ruby_engine,
                          {.engine_name = kRuby341Name, .build = kRuby341Build}) {}
};

TEST_F(RubyUpgrade, AContextOfAnotherBuildBootsFreshAndKeepsItsFilesCwdAndCount) {
  store_under_previous_build(
      "greeting = 'hi'; def shout(s) = s.upcase; $n = 41\n"
      "Dir.mkdir('notes'); File.write('notes/kept.txt', 'kept'); Dir.chdir('notes')\n"
      "shout(greeting)",
      "\"HI\"");
  reopen_as_built(kEngineName);
  // Its first use of a local fails as in a new context.
  const auto first =
      expect_fresh_interpreter("shout(greeting)", kEngineName, "NameError",
                               "undefined local variable or method 'greeting' for main");
  EXPECT_EQ(first.at("context").at("cwd").as_string(), "/workspace/notes");

  // Methods and globals are gone too; the working directory, the files and the environment
  // variables are the sandbox's, not the interpreter's, and stay.
  EXPECT_EQ(text("[defined?(shout), $n, Dir.pwd, File.read('kept.txt'), ENV['STAGE']].inspect"),
            "\"[nil, nil, \\\"/workspace/notes\\\", \\\"kept\\\", \\\"set before\\\"]\"");
  expect_durable_again("greeting = 'hello again'; greeting.size", "11", "greeting",
                       "\"hello again\"");
}

}  // namespace
}  // namespace sandbox::test

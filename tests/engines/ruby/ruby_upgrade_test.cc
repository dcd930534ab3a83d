// Upgrading the Ruby engine, as a user of sandboxd meets it (server/engine_upgrade_fixture.h):
// a code context stored under the identity of the CRuby 3.4.1 engine this tree shipped before,
// then the same database served by the engine as built.
#include <string>

#include <boost/json/serialize.hpp>
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
  serve(/*old=*/true);
  EXPECT_EQ(text("greeting = 'hi'; def shout(s) = s.upcase; $n = 41\n"
                 "Dir.mkdir('notes'); File.write('notes/kept.txt', 'kept'); Dir.chdir('notes')\n"
                 "shout(greeting)"),
            "\"HI\"");
  EXPECT_EQ(server_->post("/sandboxes/up/env", {{"envVars", {{"STAGE", "set before"}}}}).status,
            200);
  EXPECT_EQ(stored_build(context_info()), kRuby341Build);

  serve(/*old=*/false);  // the upgraded server, on the database the first one wrote
  EXPECT_EQ(languages_engine(), kEngineName);
  const std::string new_build = this->new_build();
  ASSERT_NE(new_build, kRuby341Build);
  const auto before = context_info();
  EXPECT_EQ(before.at("id").as_string(), context_id_);
  EXPECT_EQ(stored_build(before), kRuby341Build);  // discarded only when the context is used

  // The next call succeeds as a call: no error status and no message about the upgrade. The
  // program's state is what is gone: its first use of a local fails as in a new context.
  const auto first = execute("shout(greeting)");
  EXPECT_EQ(first.at("engine").as_string(), kEngineName);
  ASSERT_TRUE(first.contains("error")) << boost::json::serialize(first);
  EXPECT_EQ(first.at("error").at("name").as_string(), "NameError");
  EXPECT_EQ(first.at("error").at("message").as_string(),
            "undefined local variable or method 'greeting' for main");
  EXPECT_EQ(first.at("context").at("id").as_string(), context_id_);  // the same context
  EXPECT_EQ(first.at("executionCount").as_int64(), 2);               // its count goes on
  EXPECT_EQ(first.at("context").at("cwd").as_string(), "/workspace/notes");

  // Methods and globals are gone too; the working directory, the files and the environment
  // variables are the sandbox's, not the interpreter's, and stay.
  EXPECT_EQ(text("[defined?(shout), $n, Dir.pwd, File.read('kept.txt'), ENV['STAGE']].inspect"),
            "\"[nil, nil, \\\"/workspace/notes\\\", \\\"kept\\\", \\\"set before\\\"]\"");
  const auto after = context_info();
  EXPECT_EQ(stored_build(after), new_build);  // the new build's record replaced the old one
  // The sandbox's record of the context keeps the engine it was created with
  // (docs/sandbox-api.md CX7; SX7 does not rewrite it).
  EXPECT_EQ(after.at("engine").as_string(), kRuby341Name);

  // From here on the context is durable again under the new build.
  EXPECT_EQ(text("greeting = 'hello again'; greeting.size"), "11");
  serve(/*old=*/false);
  EXPECT_EQ(text("greeting"), "\"hello again\"");
  EXPECT_EQ(context_info().at("executions").as_int64(), 5);
}

}  // namespace
}  // namespace sandbox::test

// Upgrading the Ruby engine, as a user of sandboxd meets it: a code context stored by one engine
// build, then the same database served by a build whose id differs (a new ruby.wasm, a changed
// driver). The protocol's answer is a fresh boot, not an error: the old record is discarded and
// the context starts again from the new build's image (docs/contexts.md#cl4,
// docs/protocol.md#resident-instance R5; what the user keeps and loses is in
// docs/languages.md#upgrading).
//
// Both servers are sandboxd's core on loopback over one real SQLite file (server/
// sandboxd_fixture.h) with the real Ruby engine. The first one serves it under the identity
// (build id and name) of the CRuby 3.4.1 engine this tree shipped before (the memory it stores
// is this build's, which is never looked at: the id alone decides), the second one the engine as
// built.
#include <string>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include "ruby_engine.h"
#include "server/sandboxd_fixture.h"

namespace sandbox::test {
namespace {

// The engine of @ruby/3.4-wasm-wasi@2.10.1: its name, and its `build` (sha256 of its compiled
// module's sha256 and the driver fingerprint, src/embedded/engine_state.cc) as its snapshot
// records carry it.
constexpr const char* kRuby341Name = "CRuby 3.4.1 / ruby.wasm 2.10.1";
constexpr const char* kRuby341Build =
    "70bbd30902e7eeb3f5270419a2871f09dd717ed91f5d442f0203a5442bc69a07";
constexpr const char* kEngineName = "CRuby 4.0.0 / ruby.wasm 2.10.1";

class RubyUpgrade : public ::testing::Test {
 protected:
  // sandboxd over the test's database with the Ruby engine, as built (`old` false) or under the
  // 3.4.1 engine's identity.
  void serve(bool old) {
    server_.reset();  // a restart: the previous server is gone before the next opens the file
    SandboxdFixtureOptions o;
    o.engines = {"ruby"};
    o.db_path = dir_.file("sandboxd.db");
    o.make_engine = [](const std::string&) { return engines::make_ruby_engine(); };
    if (old) {
      o.decorate_engine = [](Engine e) {
        e.engine_name = kRuby341Name;
        e.build = kRuby341Build;
        return e;
      };
    }
    server_ = std::make_unique<InProcessSandboxd>(o);
  }

  // POST /sandboxes/up/execute in the context (the binding's default context when there is
  // none yet); the answer must be 200.
  boost::json::object execute(const std::string& code) {
    boost::json::object body{{"code", code}};
    if (context_id_.empty()) {
      body["binding"] = "RUBY";
    } else {
      body["contextId"] = context_id_;
    }
    const HttpResponse r = server_->post("/sandboxes/up/execute", body);
    EXPECT_EQ(r.status, 200) << code << ": " << r.body;
    boost::json::object answer = json_of(r);
    if (context_id_.empty()) context_id_ = std::string(answer.at("context").at("id").as_string());
    return answer;
  }

  // The single text result of `code`, which must not fail.
  std::string text(const std::string& code) {
    const auto answer = execute(code);
    EXPECT_FALSE(answer.contains("error")) << code << ": " << boost::json::serialize(answer);
    const auto& results = answer.at("results").as_array();
    if (results.size() != 1) return "<" + std::to_string(results.size()) + " results>";
    return std::string(results[0].at("text").as_string());
  }

  // The context as GET /sandboxes/up lists it.
  boost::json::object context_info() {
    const auto info = json_of(server_->call("GET", "/sandboxes/up"));
    const auto& contexts = info.at("contexts").as_array();
    EXPECT_EQ(contexts.size(), 1u);
    return contexts.empty() ? boost::json::object{} : contexts[0].as_object();
  }

  static std::string stored_build(const boost::json::object& context) {
    const auto& snapshot = context.at("snapshot");
    return snapshot.is_object() ? std::string(snapshot.at("build").as_string()) : "<none>";
  }

  TempDir dir_;
  std::unique_ptr<InProcessSandboxd> server_;
  std::string context_id_;
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
  const auto languages = json_of(server_->call("GET", "/languages")).at("languages").as_array();
  ASSERT_EQ(languages.size(), 1u);
  EXPECT_EQ(languages[0].at("engine").as_string(), kEngineName);
  const std::string new_build = engines::make_ruby_engine().build;
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

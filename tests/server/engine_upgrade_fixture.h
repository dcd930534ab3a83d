// Test helper: upgrading a built-in engine, as a user of sandboxd meets it. A code context is
// stored by one engine build, then the same database is served by a build whose id differs (a
// new interpreter, a changed driver). The protocol's answer is a fresh boot, not an error: the
// old record is discarded and the context starts again from the new build's image
// (docs/contexts.md#cl4, docs/protocol.md#resident-instance R5; what the user keeps and loses
// is in docs/languages.md#upgrading).
//
// Both servers are sandboxd's core on loopback over one real SQLite file (sandboxd_fixture.h)
// with the real engine. The first one serves it under the identity (build id and name) of the
// engine this tree shipped before (the memory it stores is this build's, which is never looked
// at: the id alone decides), the second one the engine as built.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include "server/sandboxd_fixture.h"

namespace sandbox::test {

// The engine a previous tree shipped: its name, and its `build` (sha256 of its compiled
// module's sha256 and the driver fingerprint, src/embedded/engine_state.cc) as its snapshot
// records carry it.
struct PreviousEngine {
  std::string engine_name;
  std::string build;
};

class EngineUpgradeTest : public ::testing::Test {
 protected:
  // `id` is the engine's id in sandboxd (`lua`), `binding` its binding (`LUA`).
  EngineUpgradeTest(std::string id, std::string binding, std::function<Engine()> make,
                    PreviousEngine previous)
      : id_(std::move(id)),
        binding_(std::move(binding)),
        make_(std::move(make)),
        previous_(std::move(previous)) {}

  // sandboxd over the test's database with the engine as built (`old` false) or under the
  // previous engine's identity.
  void serve(bool old) {
    server_.reset();  // a restart: the previous server is gone before the next opens the file
    SandboxdFixtureOptions o;
    o.engines = {id_};
    o.db_path = dir_.file("sandboxd.db");
    o.make_engine = [make = make_](const std::string&) { return make(); };
    if (old) {
      o.decorate_engine = [previous = previous_](Engine e) {
        e.engine_name = previous.engine_name;
        e.build = previous.build;
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
      body["binding"] = binding_;
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

  // The engine GET /languages reports (the server serves one).
  std::string languages_engine() {
    const auto languages = json_of(server_->call("GET", "/languages")).at("languages").as_array();
    EXPECT_EQ(languages.size(), 1u);
    return languages.empty() ? "<none>" : std::string(languages[0].at("engine").as_string());
  }

  static std::string stored_build(const boost::json::object& context) {
    const auto& snapshot = context.at("snapshot");
    return snapshot.is_object() ? std::string(snapshot.at("build").as_string()) : "<none>";
  }

  // The build id of the engine as built.
  std::string new_build() const { return make_().build; }

  // The steps every upgrade test takes, in order (docs/languages.md#upgrading).

  // Under the previous build: `define` runs in a new context (its text result must be
  // `defined`), the sandbox's variable STAGE is set to "set before", and the context is stored
  // under the previous build's id.
  void store_under_previous_build(const std::string& define, const std::string& defined) {
    serve(/*old=*/true);
    EXPECT_EQ(text(define), defined);
    EXPECT_EQ(server_->post("/sandboxes/up/env", {{"envVars", {{"STAGE", "set before"}}}}).status,
              200);
    EXPECT_EQ(stored_build(context_info()), previous_.build);
  }

  // The upgraded server on the database the first one wrote: GET /languages names
  // `engine_name`, the build id differs, and the stored record is discarded only when used.
  void reopen_as_built(const std::string& engine_name) {
    serve(/*old=*/false);
    EXPECT_EQ(languages_engine(), engine_name);
    ASSERT_NE(new_build(), previous_.build);
    const auto before = context_info();
    EXPECT_EQ(before.at("id").as_string(), context_id_);
    EXPECT_EQ(stored_build(before), previous_.build);
  }

  // The first call after the upgrade succeeds as a call: no error status and no message about
  // the upgrade, in the same context, its count going on. The program's state is what is gone:
  // `use` fails with `error_name: error_message` as in a new context. Returns the answer.
  boost::json::object expect_fresh_interpreter(const std::string& use,
                                               const std::string& engine_name,
                                               const std::string& error_name,
                                               const std::string& error_message) {
    const auto first = execute(use);
    EXPECT_EQ(first.at("engine").as_string(), engine_name);
    EXPECT_TRUE(first.contains("error")) << boost::json::serialize(first);
    if (first.contains("error")) {
      EXPECT_EQ(first.at("error").at("name").as_string(), error_name);
      EXPECT_EQ(first.at("error").at("message").as_string(), error_message);
    }
    EXPECT_EQ(first.at("context").at("id").as_string(), context_id_);
    EXPECT_EQ(first.at("executionCount").as_int64(), 2);
    return first;
  }

  // After a later call: the new build's record replaced the old one, and the sandbox's record
  // of the context keeps the engine it was created with (docs/sandbox-api.md CX7; SX7 does not
  // rewrite it). Then the context is durable again: `set` (text `set_result`), a restart, and
  // `get` (text `get_result`), its fifth execution.
  void expect_durable_again(const std::string& set, const std::string& set_result,
                            const std::string& get, const std::string& get_result) {
    const auto after = context_info();
    EXPECT_EQ(stored_build(after), new_build());
    EXPECT_EQ(after.at("engine").as_string(), previous_.engine_name);
    EXPECT_EQ(text(set), set_result);
    serve(/*old=*/false);
    EXPECT_EQ(text(get), get_result);
    EXPECT_EQ(context_info().at("executions").as_int64(), 5);
  }

  std::string id_;
  std::string binding_;
  std::function<Engine()> make_;
  PreviousEngine previous_;
  TempDir dir_;
  std::unique_ptr<InProcessSandboxd> server_;
  std::string context_id_;
};

}  // namespace sandbox::test

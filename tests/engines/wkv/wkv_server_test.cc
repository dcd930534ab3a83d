// The wkv test engine (a wasmify-shaped guest behind the kit's wasmify driver) served the ways a
// user meets it: by the runtime server over loopback HTTP (sandbox-runtime's InterpreterRuntime),
// as a built-in binding of sandboxd with a restart of sandboxd in the middle of a code context,
// and as a remote runtime behind sandboxd with a restart of the runtime. Registered for both
// isolations: the engine also runs in worker processes.
#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <sandbox/runtime.h>

#include "client/http_client.h"
#include "server/sandboxd_fixture.h"
#include "support/isolation_under_test.h"
#include "support/test_server.h"
#include "wkv_engine.h"

namespace sandbox {
namespace {

std::string error_name(const boost::json::object& o) {
  const auto* e = o.if_contains("error");
  return e ? std::string(e->at("name").as_string()) : "";
}

std::string error_message(const boost::json::object& o) {
  const auto* e = o.if_contains("error");
  return e ? std::string(e->at("message").as_string()) : "";
}

std::string result_text(const boost::json::object& o) {
  const auto& results = o.at("results").as_array();
  if (results.empty()) return "";
  return std::string(results[0].at("text").as_string());
}

class WkvRuntime : public ::testing::Test {
 protected:
  WkvRuntime()
      : runtime_(define_interpreter_runtime(test::under_test(engines::make_wkv_engine()))),
        server_(*runtime_),
        client_(server_.url()) {}

  boost::json::object execute(const std::string& code) {
    const HttpResponse r =
        client_.post_json("/execute", boost::json::serialize(boost::json::object{{"code", code}}));
    EXPECT_EQ(r.status, 200) << r.body;
    return boost::json::parse(r.body).as_object();
  }

  std::unique_ptr<InterpreterRuntime> runtime_;
  test::TestServer server_;
  HttpClient client_;
};

TEST_F(WkvRuntime, SurvivesHostilePrograms) {
  const auto spin = execute("spin");
  EXPECT_EQ(error_name(spin), "ExecutionLimitError");
  EXPECT_EQ(error_message(spin), "Execution fuel exhausted");
  const auto big = execute("big 140000");
  EXPECT_EQ(error_name(big), "ExecutionLimitError");
  EXPECT_EQ(error_message(big), "Interpreter response limit exceeded");
  EXPECT_EQ(error_name(execute("exit 1")), "EngineError");
  EXPECT_EQ(error_name(execute("alloc 500")), "MemoryError");
  EXPECT_EQ(error_name(execute("fail TypeError on purpose")), "TypeError");

  const auto ok = execute("set a 1\nincr a\nprint fine");
  EXPECT_EQ(error_name(ok), "");
  EXPECT_EQ(result_text(ok), "2");
  EXPECT_EQ(ok.at("logs").at("stdout").as_array().at(0), "fine");
  EXPECT_EQ(ok.at("language"), "wkv");
  const HttpResponse probe = client_.request("GET", "/interpreter");
  EXPECT_EQ(boost::json::parse(probe.body).at("contexts"), true);
}

class WkvBehindSandboxd : public ::testing::Test {
 protected:
  void start() {
    test::SandboxdFixtureOptions o;
    o.engines = {"wkv"};
    o.make_engine = [](const std::string&) { return engines::make_wkv_engine(); };
    o.db_path = dir_.file("sandboxd.db");
    d_ = std::make_unique<test::InProcessSandboxd>(std::move(o));
  }

  boost::json::object execute(const std::string& code) {
    const HttpResponse r =
        d_->post("/sandboxes/demo/execute", {{"code", code}, {"binding", "WKV"}});
    EXPECT_EQ(r.status, 200) << r.body;
    return boost::json::parse(r.body).as_object();
  }

  test::TempDir dir_;
  std::unique_ptr<test::InProcessSandboxd> d_;
};

TEST_F(WkvBehindSandboxd, AContextKeepsItsStateAcrossFailuresAndARestart) {
  start();
  EXPECT_EQ(result_text(execute("set who wkv\nincr n")), "1");
  EXPECT_EQ(result_text(execute("incr n")), "2");
  // A limit drops the instance; the next round restores the last snapshot.
  EXPECT_EQ(error_message(execute("big 140000")), "Interpreter response limit exceeded");
  EXPECT_EQ(result_text(execute("incr n")), "3");
  // Files written through the files API are the guest's /workspace, and the guest's are ours.
  HttpResponse r = d_->post("/sandboxes/demo/files",
                            {{"op", "write"}, {"path", "in.txt"}, {"content", "from api"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(result_text(execute("read in.txt\nwrite out.txt from guest")), "from api");
  r = d_->post("/sandboxes/demo/files", {{"op", "read"}, {"path", "out.txt"}});
  EXPECT_EQ(test::json_of(r).at("content"), "from guest");

  d_.reset();  // a restart: the context comes back from its snapshot in SQLite
  start();
  EXPECT_EQ(result_text(execute("incr n")), "4");
  EXPECT_EQ(result_text(execute("get who")), "wkv");
  const auto languages = test::json_of(d_->call("GET", "/languages"));
  EXPECT_EQ(languages.at("languages").as_array().at(0).at("contexts"), true);
}

// sandboxd with wkv as a remote binding: a second sandboxd serves it under /runtimes/WKV (the
// runtime protocol, as sandbox-runtime does), with the workspace sync and its resync handshake;
// the runtime restarts between two rounds and the context comes back from its snapshot there.
TEST(WkvRemoteBinding, ContextsFilesAndARestartOfTheRuntime) {
  test::TempDir dir;
  const auto remote = [&] {
    test::SandboxdFixtureOptions o;
    o.engines = {"wkv"};
    o.make_engine = [](const std::string&) { return engines::make_wkv_engine(); };
    o.db_path = dir.file("remote.db");
    o.listen = "127.0.0.1:0";
    return std::make_unique<test::InProcessSandboxd>(std::move(o));
  };
  auto runtime = remote();
  test::SandboxdFixtureOptions local_options;
  local_options.engines = {};
  local_options.db_path = dir.file("local.db");
  local_options.remote = {{"REMOTE", runtime->url() + "/runtimes/WKV"}};
  auto local = std::make_unique<test::InProcessSandboxd>(local_options);
  const auto run = [&](const std::string& code) {
    const HttpResponse r =
        local->post("/sandboxes/a/execute", {{"code", code}, {"binding", "REMOTE"}});
    EXPECT_EQ(r.status, 200) << r.body;
    return test::json_of(r);
  };

  local->post("/sandboxes/a/files", {{"op", "write"}, {"path", "in.txt"}, {"content", "hello"}});
  EXPECT_EQ(result_text(run("set who wkv\nincr n\nread /workspace/in.txt")), "hello");
  EXPECT_EQ(result_text(run("incr n\nwrite /workspace/out.txt from the remote guest")), "2");
  EXPECT_EQ(test::json_of(local->post("/sandboxes/a/files", {{"op", "read"}, {"path", "out.txt"}}))
                .at("content"),
            "from the remote guest");

  // The runtime restarts on the same port: it lost its mirror of the workspace (a resync) and
  // its resident instance (a restore from its snapshot, handle included).
  const std::string listen = "127.0.0.1:" + std::to_string(runtime->port());
  runtime.reset();
  {
    test::SandboxdFixtureOptions o;
    o.engines = {"wkv"};
    o.make_engine = [](const std::string&) { return engines::make_wkv_engine(); };
    o.db_path = dir.file("remote.db");
    o.listen = listen;
    runtime = std::make_unique<test::InProcessSandboxd>(std::move(o));
  }
  EXPECT_EQ(result_text(run("incr n")), "3");
  EXPECT_EQ(result_text(run("get who\nread /workspace/in.txt")), "hello");
  EXPECT_EQ(error_name(run("fail KeyError gone")), "KeyError");
  EXPECT_EQ(result_text(run("get n")), "3");
}

}  // namespace
}  // namespace sandbox

// sandboxd's HTTP surface end to end over loopback (SandboxdHandler + SandboxService in process,
// port 0): routing, body caps, authentication, the request log, /languages, /execute/{language},
// /runtimes/{BINDING}/..., and a remote binding served by a second sandboxd with the resync
// handshake.
#include <regex>

#include <gtest/gtest.h>

#include <sandbox/protocol.h>
#include <sandbox/workspace.h>

#include "sandbox/interpreter_key.h"
#include "server/sandboxd_fixture.h"

namespace sandbox::test {
namespace {

std::string result_text(const boost::json::object& result) {
  const auto& results = result.at("results").as_array();
  if (results.empty()) return "";
  const auto& entry = results[0].as_object();
  if (const auto* t = entry.if_contains("text")) return std::string(t->as_string());
  return boost::json::serialize(entry);
}

class SandboxdHttp : public ::testing::Test {
 protected:
  void SetUp() override { d_ = std::make_unique<InProcessSandboxd>(options()); }
  SandboxdFixtureOptions options() {
    SandboxdFixtureOptions o;
    o.engines = {"kv", "calc"};
    o.db_path = dir_.file("sandboxd.db");
    return o;
  }

  TempDir dir_;
  std::unique_ptr<InProcessSandboxd> d_;
};

TEST_F(SandboxdHttp, SandboxRoutesOverHttp) {
  HttpResponse r = d_->post("/sandboxes/demo/execute", {{"code", "incr n"}, {"binding", "KV"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_EQ(r.header("cache-control"), "no-store");
  EXPECT_EQ(result_text(json_of(r)), "1");
  const std::string context_id(json_of(r).at("context").at("id").as_string());

  r = d_->post("/sandboxes/demo/contexts", {{"binding", "KV"}});
  EXPECT_EQ(r.status, 201) << r.body;
  r = d_->call("GET", "/sandboxes/demo/contexts");
  EXPECT_EQ(json_of(r).at("contexts").as_array().size(), 2u);
  r = d_->call("DELETE",
               "/sandboxes/demo/contexts/" +
                   std::string(json_of(d_->post("/sandboxes/demo/contexts", {{"binding", "KV"}}))
                                   .at("id")
                                   .as_string()));
  EXPECT_EQ(r.status, 200);
  r = d_->post("/sandboxes/demo/env", {{"envVars", {{"A", "1"}}}});
  EXPECT_EQ(r.body, R"({"success":true})");
  r = d_->post("/sandboxes/demo/files", {{"op", "write"}, {"path", "a.txt"}, {"content", "x"}});
  EXPECT_EQ(r.status, 200);
  r = d_->call("GET", "/sandboxes/demo");
  const auto info = json_of(r);
  EXPECT_EQ(info.at("id").as_string(), "demo");
  EXPECT_EQ(info.at("contexts").as_array().size(), 2u);
  EXPECT_EQ(info.at("contexts").as_array()[0].at("id").as_string(), context_id);
  EXPECT_EQ(boost::json::serialize(info.at("envVars")), R"({"A":"1"})");
  EXPECT_EQ(info.at("workspace").at("files").as_int64(), 1);
  EXPECT_TRUE(info.at("expiresAt").is_number());
  r = d_->call("DELETE", "/sandboxes/demo");
  EXPECT_EQ(r.body, R"({"success":true})");
  EXPECT_TRUE(json_of(d_->call("GET", "/sandboxes/demo")).at("contexts").as_array().empty());
}

TEST_F(SandboxdHttp, RoutingErrors) {
  HttpResponse r = d_->call("GET", "/nope");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: Not found");
  EXPECT_EQ(d_->call("GET", "/sandboxes/").status, 404);
  r = d_->call("GET", "/sandboxes/demo/nope");
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: Not found");
  r = d_->call("PUT", "/sandboxes/demo/files", "{}");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.header("allow"), "POST");
  r = d_->call("GET", "/sandboxes/-bad-");
  EXPECT_EQ(error_of(r),
            "VALIDATION_FAILED: Invalid sandbox id \"-bad-\": cannot start or end with a hyphen");
  r = d_->call("GET", "/sandboxes/www/contexts");
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: Invalid sandbox id \"www\": 'www' is a reserved name");
  r = d_->call("POST", "/languages", "{}");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.header("allow"), "GET");
  r = d_->call("GET", "/healthz");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"status":"ok"})");
}

TEST_F(SandboxdHttp, BodiesOverTheCapAreRefusedBeforeTheyAreRead) {
  // 96 KiB for JSON routes, 2 MiB for /files.
  const std::string big_code(100 * 1024, 'x');
  HttpResponse r = d_->post("/sandboxes/demo/execute", {{"code", big_code}, {"binding", "KV"}});
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: Request too large");
  r = d_->post("/sandboxes/demo/files",
               {{"op", "write"}, {"path", "a"}, {"content", std::string(1024 * 1024, 'x')}});
  EXPECT_EQ(r.status, 200) << r.body;  // 1 MiB fits the files cap
  r = d_->post("/sandboxes/demo/files",
               {{"op", "write"}, {"path", "a"}, {"content", std::string(2 * 1024 * 1024, 'x')}});
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: Request too large");
}

TEST_F(SandboxdHttp, LanguagesListsEveryBinding) {
  const auto o = json_of(d_->call("GET", "/languages"));
  const auto& list = o.at("languages").as_array();
  ASSERT_EQ(list.size(), 2u);
  const auto& kv = list[0].as_object();
  EXPECT_EQ(kv.at("id").as_string(), "kv");
  EXPECT_EQ(kv.at("binding").as_string(), "KV");
  EXPECT_EQ(kv.at("language").as_string(), "kv");
  EXPECT_EQ(kv.at("contexts").as_bool(), true);
  EXPECT_EQ(kv.at("remote").as_bool(), false);
  EXPECT_EQ(kv.at("limits").at("fuel").as_int64(), 10'000'000);
  EXPECT_EQ(kv.at("limits").at("codeBytes").as_int64(), 65536);
  // The protocol's caps, which the Playground states instead of copies of the constants.
  EXPECT_EQ(kv.at("limits").at("requestBytes").to_number<std::uint64_t>(), kMaxRequestBytes);
  EXPECT_EQ(kv.at("limits").at("outputBytes").to_number<std::uint64_t>(), kOutputLimitBytes);
  EXPECT_EQ(kv.at("limits").at("outputChunks").to_number<std::size_t>(), kOutputLimitChunks);
  EXPECT_EQ(kv.at("limits").at("resultBytes").to_number<std::uint64_t>(), kResultLimitBytes);
  EXPECT_EQ(kv.at("limits").at("fileBytes").to_number<std::uint64_t>(), kMaxFileBytes);
  EXPECT_EQ(list[1].at("id").as_string(), "calc");
  EXPECT_EQ(list[1].at("contexts").as_bool(), false);
  // Which server answered, at project(VERSION) (tests/server/CMakeLists.txt).
  EXPECT_EQ(o.at("server").at("name").as_string(), "sandboxd");
  EXPECT_EQ(o.at("server").at("version").as_string(), SANDBOX_TEST_PROJECT_VERSION);
}

TEST_F(SandboxdHttp, StatelessExecuteByLanguage) {
  HttpResponse r = d_->post("/execute/calc", {{"code", "x * 2"}, {"envVars", {{"x", "21"}}}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(result_text(json_of(r)), "42");
  r = d_->post("/execute/KV", {{"code", "set a 1\nget a"}});
  EXPECT_EQ(result_text(json_of(r)), "1");
  r = d_->post("/execute/cobol", {{"code", "1"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: Unsupported language: cobol");
  r = d_->post("/execute/calc", {{"code", " "}});
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: Non-empty code is required");
  r = d_->post("/execute/calc", {{"code", "1"}, {"language", "python"}});
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: Unsupported language 'python' on this runtime (calc)");
  r = d_->post("/execute/calc", {{"code", "1"}, {"input", 1}});
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: input is no longer supported; pass data with envVars");
  r = d_->call("GET", "/execute/calc");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: Use POST");
  EXPECT_EQ(r.header("allow"), "POST");
  r = d_->call("POST", "/execute/calc", R"({"code":"1"})", {{"content-type", "text/plain"}});
  EXPECT_EQ(r.status, 415);
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: Content-Type must be application/json");
}

TEST_F(SandboxdHttp, RuntimesExposeTheBuiltInEnginesProtocol) {
  HttpResponse r = d_->call("GET", "/runtimes/KV/interpreter");
  EXPECT_EQ(
      r.body,
      R"({"language":"kv","engine":"kv 1.0 / sandbox-workers","contexts":true,"protocol":1})");
  r = d_->post("/runtimes/CALC/execute", {{"code", "6 * 7"}});
  EXPECT_EQ(result_text(json_of(r)), "42");
  r = d_->call("GET", "/runtimes/CALC/execute");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.body, "Method not allowed");
  r = d_->post("/runtimes/CALC/interpreters/k1/contexts", {{"id", "c1"}});
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: Code contexts are not supported for calc");
  r = d_->post("/runtimes/KV/interpreters/k1/contexts", {{"id", "c1"}});
  EXPECT_EQ(r.status, 201) << r.body;
  r = d_->call("GET", "/runtimes/NOPE/interpreter");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, "Not found");
  r = d_->call("GET", "/runtimes/KV/nope");
  EXPECT_EQ(r.status, 404);
}

TEST_F(SandboxdHttp, EveryRequestIsLoggedOnOneLine) {
  d_->post("/sandboxes/logged/execute", {{"code", "incr n"}, {"binding", "KV"}});
  d_->call("GET", "/nope");
  d_->post("/sandboxes/logged/execute", {{"code", std::string(100 * 1024, 'x')}});
  const auto lines = d_->log_lines();
  ASSERT_EQ(lines.size(), 3u);
  const std::regex line(
      R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (\S+) (\S+) (\d{3}) [0-9.]+ms sandbox=(\S+)$)");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(lines[0], m, line)) << lines[0];
  EXPECT_EQ(m[1], "POST");
  EXPECT_EQ(m[2], "/sandboxes/logged/execute");
  EXPECT_EQ(m[3], "200");
  EXPECT_EQ(m[4], "logged");
  ASSERT_TRUE(std::regex_match(lines[1], m, line)) << lines[1];
  EXPECT_EQ(m[3], "404");
  EXPECT_EQ(m[4], "-");
  ASSERT_TRUE(std::regex_match(lines[2], m, line)) << lines[2];
  EXPECT_EQ(m[3], "413");
}

TEST(SandboxdAuth, ApiKeysAreRequiredWhenConfigured) {
  TempDir dir;
  SandboxdFixtureOptions o;
  o.db_path = dir.file("db");
  o.api_keys = {"k1", "second-key"};
  InProcessSandboxd d(o);
  HttpResponse r = d.call("GET", "/sandboxes/demo");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: Missing or invalid API key");
  EXPECT_EQ(r.header("www-authenticate"), "Bearer");
  EXPECT_EQ(d.call("GET", "/sandboxes/demo", "", {{"authorization", "Bearer nope"}}).status, 401);
  EXPECT_EQ(d.call("GET", "/sandboxes/demo", "", {{"authorization", "k1"}}).status, 401);
  EXPECT_EQ(d.call("GET", "/sandboxes/demo", "", {{"authorization", "Bearer k1"}}).status, 200);
  EXPECT_EQ(d.call("GET", "/languages", "", {{"authorization", "bearer second-key"}}).status, 200);
  EXPECT_EQ(d.call("GET", "/runtimes/KV/interpreter").status, 401);
  EXPECT_EQ(d.call("GET", "/healthz").status, 200);
}

// A second sandboxd serves KV under /runtimes/KV; the first reaches it as binding REMOTE.
class RemoteBindingE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    SandboxdFixtureOptions remote_options;
    remote_options.engines = {"kv"};
    remote_options.db_path = dir_.file("remote.db");
    remote_options.max_resident_instances = 1;  // a second key evicts the first one's mirror
    remote_ = std::make_unique<InProcessSandboxd>(remote_options);
    SandboxdFixtureOptions local_options;
    local_options.engines = {"calc"};
    local_options.db_path = dir_.file("local.db");
    local_options.remote = {{"REMOTE", remote_->url() + "/runtimes/KV"}};
    local_ = std::make_unique<InProcessSandboxd>(local_options);
  }

  // How many executions the remote runtime received.
  int remote_executes() {
    int n = 0;
    for (const auto& line : remote_->log_lines()) {
      if (line.find("POST /runtimes/KV/interpreters/") != std::string::npos &&
          line.find("/execute 200") != std::string::npos) {
        ++n;
      }
    }
    return n;
  }

  boost::json::object run(const std::string& sandbox, const std::string& code) {
    const HttpResponse r =
        local_->post("/sandboxes/" + sandbox + "/execute", {{"code", code}, {"binding", "REMOTE"}});
    EXPECT_EQ(r.status, 200) << r.body;
    return json_of(r);
  }

  TempDir dir_;
  std::unique_ptr<InProcessSandboxd> remote_;
  std::unique_ptr<InProcessSandboxd> local_;
};

TEST_F(RemoteBindingE2E, ContextsFilesAndTheResyncHandshake) {
  local_->post("/sandboxes/a/files", {{"op", "write"}, {"path", "in.txt"}, {"content", "hello"}});
  auto r = run("a", "incr n\nread /workspace/in.txt");
  EXPECT_EQ(result_text(r), "hello");
  EXPECT_EQ(remote_executes(), 1);
  r = run("a", "incr n");
  EXPECT_EQ(result_text(r), "2");
  EXPECT_EQ(remote_executes(), 2);

  // Guest writes come back into the sandbox's tree.
  run("a", "write /workspace/out.txt from the remote guest");
  r = json_of(local_->post("/sandboxes/a/files", {{"op", "read"}, {"path", "out.txt"}}));
  EXPECT_EQ(r.at("content").as_string(), "from the remote guest");
  EXPECT_EQ(remote_executes(), 3);

  // Sandbox b's key takes the remote's only resident slot: a's mirror is dropped there, but a's
  // binding still believes it holds in.txt, so the runtime asks for a resync (two requests).
  EXPECT_EQ(result_text(run("b", "incr n")), "1");
  EXPECT_EQ(remote_executes(), 4);
  r = run("a", "incr n\nread /workspace/in.txt");
  EXPECT_EQ(result_text(r), "hello");
  EXPECT_EQ(remote_executes(), 6);
  EXPECT_EQ(result_text(run("a", "get n")), "3");  // restored from the remote snapshot
  EXPECT_EQ(remote_executes(), 7);

  // The context lives on the remote; deleting the sandbox wipes its key there.
  const auto info = json_of(local_->call("GET", "/sandboxes/a"));
  ASSERT_EQ(info.at("contexts").as_array().size(), 1u);
  EXPECT_EQ(info.at("contexts").as_array()[0].at("language").as_string(), "kv");
  const auto meta = local_->storage().sandboxes().get_meta("a");
  const std::string key = interpreter_key(meta->at("lifetime").as_string(), "REMOTE");
  EXPECT_EQ(remote_->storage().interpreters().list_contexts(key).size(), 1u);
  EXPECT_EQ(local_->call("DELETE", "/sandboxes/a").status, 200);
  EXPECT_TRUE(remote_->storage().interpreters().list_contexts(key).empty());
}

TEST_F(RemoteBindingE2E, ExplicitContextsAndLanguages) {
  auto r = local_->post("/sandboxes/c/contexts", {{"binding", "REMOTE"}, {"cwd", "/workspace/w"}});
  ASSERT_EQ(r.status, 201) << r.body;
  const std::string id(json_of(r).at("id").as_string());
  EXPECT_EQ(json_of(r).at("cwd").as_string(), "/workspace/w");
  r = local_->post("/sandboxes/c/execute", {{"code", "incr z"}, {"contextId", id}});
  EXPECT_EQ(result_text(json_of(r)), "1");
  EXPECT_EQ(local_->call("DELETE", "/sandboxes/c/contexts/" + id).status, 200);
  r = local_->post("/sandboxes/c/execute", {{"code", "incr z"}, {"contextId", id}});
  EXPECT_EQ(r.status, 404);

  const auto langs = json_of(local_->call("GET", "/languages")).at("languages").as_array();
  ASSERT_EQ(langs.size(), 2u);
  const auto& remote = langs[1].as_object();
  EXPECT_EQ(remote.at("id").as_string(), "remote");
  EXPECT_EQ(remote.at("remote").as_bool(), true);
  EXPECT_EQ(remote.at("available").as_bool(), true);
  EXPECT_EQ(remote.at("language").as_string(), "kv");
  EXPECT_EQ(remote.at("contexts").as_bool(), true);
  EXPECT_TRUE(remote.at("limits").is_null());
  r = local_->post("/execute/remote", {{"code", "set a 5\nget a"}});
  EXPECT_EQ(result_text(json_of(r)), "5");
}

TEST_F(RemoteBindingE2E, AnUnreachableRemoteIsReported) {
  remote_.reset();
  HttpResponse r = local_->post("/sandboxes/d/contexts", {{"binding", "REMOTE"}});
  EXPECT_EQ(error_of(r),
            "VALIDATION_FAILED: Binding 'REMOTE' is not a sandbox-workers runtime Worker");
  const auto langs = json_of(local_->call("GET", "/languages")).at("languages").as_array();
  EXPECT_EQ(langs[1].at("available").as_bool(), false);
  r = local_->post("/execute/remote", {{"code", "get a"}});
  EXPECT_EQ(r.status, 502);
  EXPECT_EQ(error_of(r).rfind("INTERNAL_ERROR: Binding 'REMOTE' failed: ", 0), 0u) << r.body;
}

}  // namespace
}  // namespace sandbox::test

// The real `sandboxd` executable: the flows of docs/sandboxd.md across a restart (a Lua counter in
// a context, files both ways), a remote binding served by a second sandboxd (with a bearer token),
// the API key rule for non-loopback addresses, the File API switch, and the default engine set
// (without the tests' kv engine).
#include <algorithm>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "server/sandboxd_config.h"
#include "server/sandboxd_fixture.h"
#include "server/sandboxd_process.h"

namespace sandbox::test {
namespace {

HttpResponse call(const std::string& url, const std::string& method, const std::string& path,
                  const std::string& body = {},
                  std::vector<std::pair<std::string, std::string>> headers = {}) {
  HttpClient client(url);
  if (method == "POST") return client.post_json(path, body, headers);
  return client.request(method, path, body, headers);
}

HttpResponse post(const std::string& url, const std::string& path, const boost::json::object& body,
                  std::vector<std::pair<std::string, std::string>> headers = {}) {
  return call(url, "POST", path, boost::json::serialize(body), std::move(headers));
}

std::string result_text(const HttpResponse& r) {
  const auto o = json_of(r);
  const auto* results = o.if_contains("results");
  if (!results || results->as_array().empty()) return "<no result: " + r.body + ">";
  const auto& entry = results->as_array()[0].as_object();
  if (const auto* t = entry.if_contains("text")) return std::string(t->as_string());
  return boost::json::serialize(entry);
}

TEST(SandboxdBinary, LuaCounterAndFilesSurviveARestart) {
  TempDir dir;
  const std::string data = dir.file("data");
  const std::string counter = "n = (n or 0) + 1\nreturn n";
  std::string context_id;
  {
    SandboxdProcess d(data, {"--engines", "lua,calc"});
    ASSERT_TRUE(d.started()) << d.process().stderr_text();
    HttpResponse r =
        post(d.url(), "/sandboxes/demo/execute", {{"code", counter}, {"binding", "LUA"}});
    EXPECT_EQ(result_text(r), "1");
    context_id = json_of(r).at("context").at("id").as_string();
    r = post(d.url(), "/sandboxes/demo/execute", {{"code", counter}, {"binding", "LUA"}});
    EXPECT_EQ(result_text(r), "2");
    r = post(d.url(), "/sandboxes/demo/files",
             {{"op", "write"}, {"path", "/workspace/greeting.txt"}, {"content", "hello"}});
    ASSERT_EQ(r.status, 200) << r.body;
    r = post(
        d.url(), "/sandboxes/demo/execute",
        {{"code",
          "local f = assert(io.open('greeting.txt')) local s = f:read('a') f:close()\n"
          "local o = assert(io.open('/workspace/shout.txt', 'w')) o:write(s:upper()) o:close()\n"
          "return s"},
         {"contextId", context_id}});
    EXPECT_EQ(result_text(r), "\"hello\"");
    EXPECT_EQ(d.stop(), 0);
    // One log line per request, with the sandbox id.
    const std::string log = d.process().stderr_text();
    EXPECT_NE(log.find("POST /sandboxes/demo/execute 200"), std::string::npos) << log;
    EXPECT_NE(log.find("sandbox=demo"), std::string::npos) << log;
  }
  SandboxdProcess d(data, {"--engines", "lua,calc"});
  ASSERT_TRUE(d.started()) << d.process().stderr_text();
  HttpResponse r =
      post(d.url(), "/sandboxes/demo/execute", {{"code", counter}, {"binding", "LUA"}});
  EXPECT_EQ(result_text(r), "3");
  EXPECT_EQ(json_of(r).at("context").at("id").as_string(), context_id);
  r = post(d.url(), "/sandboxes/demo/files", {{"op", "read"}, {"path", "shout.txt"}});
  EXPECT_EQ(json_of(r).at("content").as_string(), "HELLO");
  r = call(d.url(), "GET", "/sandboxes/demo");
  EXPECT_EQ(json_of(r).at("contexts").as_array()[0].at("executions").as_int64(), 4);
}

// The wasmify test engine (docs/wasmify-abi.md) behind the real sandboxd, whose engines run in
// worker processes: its interpreter handle and globals come back from the stored snapshot after
// a restart, and a response over the 128 KiB limit is an ExecutionLimitError, not a failure of
// the server.
TEST(SandboxdBinary, TheWasmifyTestEngineKeepsItsContextAcrossARestart) {
  TempDir dir;
  const std::string data = dir.file("data");
  {
    SandboxdProcess d(data, {"--engines", "wkv"});
    ASSERT_TRUE(d.started()) << d.process().stderr_text();
    HttpResponse r = post(d.url(), "/sandboxes/demo/execute",
                          {{"code", "set who wkv\nincr n"}, {"binding", "WKV"}});
    EXPECT_EQ(result_text(r), "1");
    r = post(d.url(), "/sandboxes/demo/execute", {{"code", "big 140000"}, {"binding", "WKV"}});
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(json_of(r).at("error").at("message"), "Interpreter response limit exceeded");
    EXPECT_EQ(d.stop(), 0);
  }
  SandboxdProcess d(data, {"--engines", "wkv"});
  ASSERT_TRUE(d.started()) << d.process().stderr_text();
  EXPECT_EQ(result_text(
                post(d.url(), "/sandboxes/demo/execute", {{"code", "incr n"}, {"binding", "WKV"}})),
            "2");
  EXPECT_EQ(result_text(post(d.url(), "/sandboxes/demo/execute",
                             {{"code", "get who"}, {"binding", "WKV"}})),
            "wkv");
}

TEST(SandboxdBinary, ARemoteBindingServedByASecondSandboxd) {
  TempDir dir;
  SandboxdProcess remote(dir.file("remote"), {"--engines", "kv", "--api-key", "s3cret"});
  ASSERT_TRUE(remote.started()) << remote.process().stderr_text();
  // The remote's runtimes need the key too.
  EXPECT_EQ(call(remote.url(), "GET", "/runtimes/KV/interpreter").status, 401);
  const std::string host_port = remote.url().substr(std::string("http://").size());
  SandboxdProcess local(
      dir.file("local"),
      {"--engines", "calc", "--binding", "REMOTE_KV=http://s3cret@" + host_port + "/runtimes/KV"});
  ASSERT_TRUE(local.started()) << local.process().stderr_text();
  EXPECT_NE(local.process().stdout_text().find("REMOTE_KV=http://" + host_port + "/runtimes/KV"),
            std::string::npos)
      << "the token is not printed: " << local.process().stdout_text();

  post(local.url(), "/sandboxes/r1/files",
       {{"op", "write"}, {"path", "x.txt"}, {"content", "from api"}});
  HttpResponse r = post(local.url(), "/sandboxes/r1/execute",
                        {{"code", "incr n\nread /workspace/x.txt"}, {"binding", "REMOTE_KV"}});
  EXPECT_EQ(result_text(r), "from api");
  r = post(local.url(), "/sandboxes/r1/execute", {{"code", "incr n"}, {"binding", "REMOTE_KV"}});
  EXPECT_EQ(result_text(r), "2");
  post(local.url(), "/sandboxes/r1/execute",
       {{"code", "write /workspace/y.txt from guest"}, {"binding", "REMOTE_KV"}});
  r = post(local.url(), "/sandboxes/r1/files", {{"op", "read"}, {"path", "y.txt"}});
  EXPECT_EQ(json_of(r).at("content").as_string(), "from guest");

  // The remote restarts: its contexts come back from its database; the local sandbox's binding
  // resends what the new process's mirror lacks.
  const std::string remote_data = dir.file("remote");
  EXPECT_EQ(remote.stop(), 0);
  r = post(local.url(), "/sandboxes/r1/execute", {{"code", "incr n"}, {"binding", "REMOTE_KV"}});
  EXPECT_EQ(r.status, 502);
  EXPECT_EQ(error_of(r).rfind("INTERNAL_ERROR: Binding 'REMOTE_KV' failed:", 0), 0u) << r.body;
}

TEST(SandboxdBinary, NonLoopbackListenersNeedAnApiKey) {
  TempDir dir;
  {
    ChildProcess refused(
        {SANDBOXD_PATH, "--listen", "0.0.0.0:0", "--data", dir.file("d"), "--engines", "calc"}, {},
        {}, dir.file("err.log"));
    EXPECT_EQ(refused.wait_exit(), 2);
    EXPECT_NE(refused.stderr_text().find("without an API key"), std::string::npos)
        << refused.stderr_text();
  }
  SandboxdProcess keyed(dir.file("d"), {"--listen", "0.0.0.0:0", "--engines", "calc"},
                        {"SANDBOXD_API_KEYS=k1,k2"});
  ASSERT_TRUE(keyed.started()) << keyed.process().stderr_text();
  EXPECT_EQ(call(keyed.url(), "GET", "/sandboxes/a").status, 401);
  EXPECT_EQ(call(keyed.url(), "GET", "/sandboxes/a", "", {{"authorization", "Bearer k2"}}).status,
            200);
  EXPECT_EQ(call(keyed.url(), "GET", "/healthz").status, 200);
}

TEST(SandboxdBinary, BadArgumentsAreRefused) {
  TempDir dir;
  ChildProcess bad_engine({SANDBOXD_PATH, "--data", dir.file("d"), "--engines", "cobol"}, {}, {},
                          dir.file("e1"));
  EXPECT_EQ(bad_engine.wait_exit(), 2);
  EXPECT_NE(bad_engine.stderr_text().find("unknown engine 'cobol'"), std::string::npos);
  ChildProcess bad_binding({SANDBOXD_PATH, "--data", dir.file("d"), "--engines", "calc",
                            "--binding", "9X=http://127.0.0.1:1"},
                           {}, {}, dir.file("e2"));
  EXPECT_EQ(bad_binding.wait_exit(), 2);
  EXPECT_NE(bad_binding.stderr_text().find("binding name '9X'"), std::string::npos)
      << bad_binding.stderr_text();
}

TEST(SandboxdBinary, TheFileApiCanBeDisabled) {
  TempDir dir;
  SandboxdProcess d(dir.file("d"), {"--engines", "kv"}, {"SANDBOX_FILE_API=disabled"});
  ASSERT_TRUE(d.started());
  HttpResponse r = post(d.url(), "/sandboxes/f/files", {{"op", "list"}, {"path", "/workspace"}});
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(json_of(r).at("code").as_string(), "NOT_SUPPORTED");
  r = post(d.url(), "/sandboxes/f/execute", {{"code", "write /workspace/a x"}, {"binding", "KV"}});
  EXPECT_EQ(json_of(r).at("error").at("name").as_string(), "OSError");
  EXPECT_FALSE(json_of(call(d.url(), "GET", "/sandboxes/f")).at("fileApi").as_bool());
}

TEST(SandboxdBinary, IdleSandboxesExpireInTheBackground) {
  TempDir dir;
  SandboxdProcess d(dir.file("d"), {"--engines", "kv"}, {"SANDBOX_IDLE_TTL_MS=300"});
  ASSERT_TRUE(d.started());
  HttpResponse r =
      post(d.url(), "/sandboxes/idle/execute", {{"code", "incr n"}, {"binding", "KV"}});
  EXPECT_EQ(result_text(r), "1");
  post(d.url(), "/sandboxes/idle/files", {{"op", "write"}, {"path", "a"}, {"content", "x"}});
  std::this_thread::sleep_for(std::chrono::milliseconds(1800));
  const auto info = json_of(call(d.url(), "GET", "/sandboxes/idle"));
  EXPECT_TRUE(info.at("contexts").as_array().empty()) << boost::json::serialize(info);
  EXPECT_EQ(info.at("workspace").at("files").as_int64(), 0);
  r = post(d.url(), "/sandboxes/idle/execute", {{"code", "incr n"}, {"binding", "KV"}});
  EXPECT_EQ(result_text(r), "1");
}

// Every built engine but the tests' kv, which only --engines serves (the tests above name it).
TEST(SandboxdBinary, ServesTheDefaultEnginesWithoutEngines) {
  TempDir dir;
  SandboxdProcess d(dir.file("d"), {});
  ASSERT_TRUE(d.started()) << d.process().stderr_text();
  const auto langs = json_of(call(d.url(), "GET", "/languages")).at("languages").as_array();
  std::vector<std::string> ids;
  for (const auto& l : langs) ids.emplace_back(l.at("id").as_string());
  std::vector<std::string> expected = split_list(SANDBOXD_DEFAULT_ENGINES);
  std::sort(ids.begin(), ids.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(ids, expected);
  EXPECT_EQ(std::find(ids.begin(), ids.end(), "kv"), ids.end());
  EXPECT_EQ(std::find(ids.begin(), ids.end(), "wkv"), ids.end());
  EXPECT_EQ(call(d.url(), "GET", "/runtimes/KV/interpreter").status, 404);
  // Each one answers its runtime probe under /runtimes/.
  for (const auto& id : ids) {
    HttpResponse r = call(d.url(), "GET", "/runtimes/" + upper(id) + "/interpreter");
    EXPECT_EQ(r.status, 200) << id;
  }
}

}  // namespace
}  // namespace sandbox::test

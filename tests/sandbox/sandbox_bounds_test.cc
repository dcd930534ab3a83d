// Issue 12 item 8: the state a client can make a sandboxd keep is bounded. Env vars (count,
// bytes, no NUL) wherever they enter, and the number of sandboxes in the store.
#include <sandbox/protocol.h>

#include "sandbox/binding.h"
#include "sandbox/execute_response_json.h"
#include "sandbox_test_fixture.h"

namespace sandbox::test {
namespace {

class SandboxBounds : public SandboxFixture {
 protected:
  void SetUp() override { start(); }

  // {V0: "v", V1: "v", ...} with `n` entries, starting at `first`.
  static boost::json::object many_vars(std::size_t n, std::size_t first = 0) {
    boost::json::object env;
    for (std::size_t i = first; i < first + n; ++i) env["V" + std::to_string(i)] = "v";
    return env;
  }

  std::string error_message(const HttpResponse& r) {
    const auto o = json_of(r);
    const auto* code = o.if_contains("code");
    const auto* message = o.if_contains("message");
    if (!code || !message) return "<not an error>";
    return std::string(code->as_string()) + ": " + std::string(message->as_string());
  }
};

TEST_F(SandboxBounds, EnvVarsPastTheCountLimitAreRefusedWhereverTheyEnter) {
  // /env: one body over the limit, and a stored set that would grow past it.
  HttpResponse r = post("s1", "/env", {{"envVars", many_vars(kMaxEnvVars + 1)}});
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(error_message(r).find("kMaxEnvVars"), std::string::npos) << r.body;
  post_ok("s1", "/env", {{"envVars", many_vars(kMaxEnvVars)}});
  r = post("s1", "/env", {{"envVars", {{"ONE_MORE", "x"}}}});
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(error_message(r).find("the sandbox's envVars"), std::string::npos) << r.body;
  EXPECT_EQ(get_ok("s1").at("envVars").as_object().size(), kMaxEnvVars);

  // Context creation and execute bodies.
  r = post("s2", "/contexts", {{"binding", "KV"}, {"envVars", many_vars(kMaxEnvVars + 1)}});
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(error_message(r).find("kMaxEnvVars"), std::string::npos) << r.body;
  r = post("s2", "/execute",
           {{"code", "get x"}, {"binding", "KV"}, {"envVars", many_vars(kMaxEnvVars + 1)}});
  EXPECT_EQ(r.status, 400) << r.body;
  // The set an execution sees: the sandbox's and the call's together.
  post_ok("s2", "/env", {{"envVars", many_vars(100)}});
  r = post("s2", "/execute",
           {{"code", "get x"}, {"binding", "KV"}, {"envVars", many_vars(kMaxEnvVars - 99, 100)}});
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(error_message(r).find("merged"), std::string::npos) << r.body;
  r = post("s2", "/execute",
           {{"code", "get x"}, {"binding", "KV"}, {"envVars", many_vars(kMaxEnvVars - 100, 100)}});
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST_F(SandboxBounds, EnvVarsPastTheByteLimitAreRefused) {
  const std::string half(kMaxEnvBytes / 2, 'x');
  HttpResponse r = post("s1", "/env", {{"envVars", {{"A", half}, {"B", half}}}});
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(error_message(r).find("kMaxEnvBytes"), std::string::npos) << r.body;
  post_ok("s1", "/env", {{"envVars", {{"A", half}}}});
  r = post("s1", "/env", {{"envVars", {{"B", half}}}});
  EXPECT_EQ(r.status, 400) << r.body;
  r = post("s1", "/contexts",
           {{"binding", "KV"}, {"envVars", {{"C", std::string(kMaxEnvBytes, 'y')}}}});
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(error_message(r).find("kMaxEnvBytes"), std::string::npos) << r.body;
}

TEST_F(SandboxBounds, AnEnvVarValueWithANulIsRefused) {
  const std::string nul("a\0b", 3);
  HttpResponse r = post("s1", "/env", {{"envVars", {{"A", nul}}}});
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(error_message(r), "VALIDATION_FAILED: envVars value of 'A' contains a NUL character");
  r = post("s1", "/contexts", {{"binding", "KV"}, {"envVars", {{"A", nul}}}});
  EXPECT_EQ(r.status, 400) << r.body;
  r = post("s1", "/execute", {{"code", "get A"}, {"binding", "KV"}, {"envVars", {{"A", nul}}}});
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_FALSE(get_ok("s1").at("envVars").as_object().contains("A"));
}

TEST_F(SandboxBounds, SandboxesPastTheLimitAreRefusedUntilOneIsDeleted) {
  start(SandboxOptions{.max_sandboxes = 3});
  for (const char* id : {"s1", "s2", "s3"}) get_ok(id);
  HttpResponse r = call("s4", "GET", "/");
  EXPECT_EQ(r.status, 503) << r.body;
  EXPECT_EQ(json_of(r).at("code").as_string(), "NO_SPACE");
  EXPECT_NE(error_message(r).find("at most 3 sandboxes"), std::string::npos) << r.body;
  r = post("s5", "/execute", {{"code", "incr n"}, {"binding", "KV"}});
  EXPECT_EQ(r.status, 503) << r.body;
  EXPECT_EQ(storage_->sandboxes().count_sandboxes(), 3u);
  // Existing sandboxes keep working; deleting one makes room.
  EXPECT_EQ(run("s1", "incr n", "KV"), "1");
  EXPECT_EQ(call("s2", "DELETE", "/").status, 200);
  EXPECT_EQ(run("s4", "incr n", "KV"), "1");
  EXPECT_EQ(call("s5", "GET", "/").status, 503);
}

// Issue 12 item 7: a remote runtime's answer is hostile too. Counters and timestamps no integer
// of their type holds make it invalid (BindingError, a 502 to the caller) instead of reaching a
// cast that is undefined for them.
TEST(ExecuteResponseJson, NumbersOutOfRangeMakeTheAnswerInvalid) {
  const auto answer = [](const std::string& execution_count, const std::string& executions,
                         const std::string& updated_at) {
    return boost::json::parse(
               R"({"results":[],"logs":{"stdout":[],"stderr":[]},"executionCount":)" +
               execution_count + R"(,"context":{"id":"c","cwd":"/workspace","executions":)" +
               executions + R"(},"workspace":{"dirs":[],"deleted":[],"files":[{"path":"f",)" +
               R"("data":"","updatedAt":)" + updated_at + "}]}}")
        .as_object();
  };
  const auto ok = execute_response_from_json(answer("2", "2.0", "1700000000000"));
  EXPECT_EQ(ok.execution_count, 2u);
  EXPECT_EQ(ok.context.executions, 2u);
  EXPECT_EQ(ok.files.at(0).updated_at, 1'700'000'000'000);
  for (const auto& [count, executions, updated] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"1e300", "1", "1"},
           {"-1", "1", "1"},
           {"18446744073709551616", "1", "1"},
           {"1", "1e400", "1"},
           {"1", "0.5", "1"},
           {"1", "1", "1e300"},
           {"1", "1", "-1e400"},
           {"1", "1", "9223372036854775808"}}) {
    EXPECT_THROW(static_cast<void>(execute_response_from_json(answer(count, executions, updated))),
                 BindingError)
        << count << " " << executions << " " << updated;
  }
}

}  // namespace
}  // namespace sandbox::test

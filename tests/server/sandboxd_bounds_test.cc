// Issue 12 over real HTTP: numbers a client sends are converted with checks (item 7), the env
// limits on a runtime's own routes and the bound on interpreter keys (item 8).
#include <gtest/gtest.h>

#include <sandbox/interpreter.h>

#include "interpreter/over_store.h"
#include "server/sandboxd_fixture.h"
#include "storage/sqlite/sqlite_stores.h"

namespace sandbox::test {
namespace {

class SandboxdBounds : public ::testing::Test {
 protected:
  void SetUp() override {
    SandboxdFixtureOptions o;
    o.engines = {"kv", "calc"};
    o.db_path = dir_.file("sandboxd.db");
    d_ = std::make_unique<InProcessSandboxd>(o);
  }

  // POST /runtimes/KV/interpreters/k1/execute with one workspace file whose updatedAt is the
  // raw JSON text `updated_at` (1e400 cannot be written by a JSON serializer).
  HttpResponse execute_with_updated_at(const std::string& updated_at) {
    const std::string body =
        R"({"contextId":"c1","code":"get x","envVars":{},"workspace":{"dirs":[],)"
        R"("manifest":{"f.txt":"h"},"files":[{"path":"f.txt","data":"aGk=","updatedAt":)" +
        updated_at + "}]}}";
    return d_->call("POST", "/runtimes/KV/interpreters/k1/execute", body);
  }

  TempDir dir_;
  std::unique_ptr<InProcessSandboxd> d_;
};

TEST_F(SandboxdBounds, UpdatedAtThatIsNoInt64IsAValidationError) {
  ASSERT_EQ(d_->post("/runtimes/KV/interpreters/k1/contexts", {{"id", "c1"}}).status, 201);
  for (const char* bad : {"1e300", "1e400", "-1e400", "9223372036854775808", "18446744073709551616",
                          "-9.3e18", "1.5"}) {
    const HttpResponse r = execute_with_updated_at(bad);
    EXPECT_EQ(r.status, 400) << bad << ": " << r.body;
    EXPECT_EQ(error_of(r),
              "VALIDATION_FAILED: workspace.files[].updatedAt must be an integer (epoch "
              "milliseconds)")
        << bad;
  }
  // Integers (and an integral double) are still taken.
  for (const char* good : {"1700000000000", "1.7e12", "-1"}) {
    const HttpResponse r = execute_with_updated_at(good);
    EXPECT_EQ(r.status, 200) << good << ": " << r.body;
  }
}

// Regression (issue: a stateless execute whose envVars filled a legal 96 KiB body was refused by
// the 64 KiB cap meant for stored variables). Stateless routes take any variables the body cap
// allows, as the protocol we are compatible with does; a context's execute keeps the caps.
TEST_F(SandboxdBounds, StatelessExecuteTakesAsManyEnvVarsAsTheBodyHolds) {
  boost::json::object big;
  for (int i = 0; i < 9; ++i) big["V" + std::to_string(i)] = std::string(10'000, 'v');
  const std::string body =
      boost::json::serialize(boost::json::object{{"code", "1+1"}, {"envVars", big}});
  ASSERT_GT(body.size(), kMaxEnvBytes);
  ASSERT_LT(body.size(), kMaxRequestBytes);
  for (const std::string path : {"/runtimes/CALC/execute", "/execute/calc"}) {
    SCOPED_TRACE(path);
    const HttpResponse r = d_->call("POST", path, body);
    EXPECT_EQ(r.status, 200) << r.body;
  }
  // The same through a sandbox's stateless run (calc has no contexts).
  HttpResponse r = d_->call("POST", "/sandboxes/st/execute",
                            boost::json::serialize(boost::json::object{
                                {"code", "1+1"}, {"binding", "CALC"}, {"envVars", big}}));
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST_F(SandboxdBounds, RuntimeExecuteBodiesKeepTheEnvLimits) {
  boost::json::object env;
  for (std::size_t i = 0; i <= kMaxEnvVars; ++i) env["V" + std::to_string(i)] = "1";
  HttpResponse r = d_->post("/runtimes/CALC/execute", {{"code", "1"}, {"envVars", env}});
  EXPECT_EQ(r.status, 200) << r.body;  // stateless: the body cap alone
  r = d_->post("/runtimes/CALC/execute",
               {{"code", "x"}, {"envVars", {{"x", std::string("1\0", 2)}}}});
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: envVars value of 'x' contains a NUL character");
  r = d_->post("/runtimes/CALC/execute", {{"code", "x"}, {"envVars", {{"x", "2"}}}});
  EXPECT_EQ(r.status, 200) << r.body;

  ASSERT_EQ(d_->post("/runtimes/KV/interpreters/k1/contexts", {{"id", "c1"}}).status, 201);
  boost::json::object body{
      {"contextId", "c1"},
      {"code", "get x"},
      {"envVars", env},
      {"workspace", {{"dirs", boost::json::array{}}, {"manifest", boost::json::object{}}}}};
  r = d_->post("/runtimes/KV/interpreters/k1/execute", body);
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(error_of(r).find("kMaxEnvVars"), std::string::npos) << r.body;
  body["envVars"] = {{"x", std::string("\0", 1)}};
  r = d_->post("/runtimes/KV/interpreters/k1/execute", body);
  EXPECT_EQ(r.status, 400) << r.body;
}

TEST_F(SandboxdBounds, AContextIdWithANulIsRefusedByTheRuntime) {
  const HttpResponse r =
      d_->post("/runtimes/KV/interpreters/k1/contexts", {{"id", std::string("a\0b", 3)}});
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: id must not contain a NUL character");
}

TEST(InterpreterKeys, KeysPastTheLimitGetNoContexts) {
  SqliteStorage storage(":memory:");
  ManualClock clock;
  const Engine engine = make_test_engine("kv");
  const auto server =
      make_interpreter_server(engine, storage.interpreters(), clock,
                              InterpreterServerOptions{.idle_ttl_ms = 0, .max_keys = 2});
  const auto create = [&](const std::string& key, const std::string& id) {
    return server->handle(key, "POST", "/contexts", R"({"id":")" + id + R"("})");
  };
  EXPECT_EQ(create("k1", "a").status, 201);
  EXPECT_EQ(create("k2", "a").status, 201);
  const HttpResponse refused = create("k3", "a");
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_EQ(error_of(refused),
            "NO_SPACE: This runtime keeps code contexts for at most 2 interpreter keys");
  // A key that has contexts may add more; a freed key makes room.
  EXPECT_EQ(create("k1", "b").status, 201);
  EXPECT_EQ(storage.interpreters().count_keys_with_contexts(), 2u);
  EXPECT_EQ(server->handle("k2", "DELETE", "/contexts/a", "").status, 200);
  EXPECT_EQ(create("k3", "a").status, 201);
}

}  // namespace
}  // namespace sandbox::test

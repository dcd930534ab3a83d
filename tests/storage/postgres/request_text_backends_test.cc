// Issue 12 item 8f and the stores' counters: what a request carries reaches SQLite and
// PostgreSQL alike. A NUL byte (JSON "\u0000", URL %00) or invalid UTF-8 in an env var value,
// a context id or a path segment is a 400 or a 404 on both backends, never PostgreSQL's 500
// ("invalid byte sequence"); the sandbox and interpreter-key bounds count the same on both.
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <sandbox/protocol.h>
#include <sandbox/runtime.h>

#include "interpreter/over_store.h"
#include "kv_engine.h"
#include "sandbox/local_binding.h"
#include "sandbox/sandbox_service.h"
#include "storage/storage_backends.h"

namespace sandbox::testing_storage {
namespace {

class RequestTextBackends : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped()) return;
    storage_ = db().open();
    bindings_.add(make_local_binding(
        "KV", define_interpreter_runtime(
                  engines::make_kv_engine(), storage_->interpreters(),
                  RuntimeOptions{.clock = &clock_, .idle_ttl_ms = 0, .background_expiry = false})));
    service_ = std::make_unique<SandboxService>(
        storage_->sandboxes(), clock_, bindings_,
        SandboxServiceOptions{.sandbox = {.max_sandboxes = 2}, .background_expiry = false});
  }

  HttpResponse post(const std::string& id, const std::string& path,
                    const boost::json::object& body) {
    return service_->handle(id, "POST", path, boost::json::serialize(body));
  }

  static std::string code_of(const HttpResponse& r) {
    boost::system::error_code ec;
    const auto v = boost::json::parse(r.body, ec);
    if (ec || !v.is_object() || !v.as_object().contains("code")) return "<none>";
    return std::string(v.at("code").as_string());
  }

  ManualClock clock_;
  std::unique_ptr<Storage> storage_;
  BindingSet bindings_;
  std::unique_ptr<SandboxService> service_;
};

TEST_P(RequestTextBackends, ANulInAnEnvVarValueIsAValidationErrorNotAStorageFailure) {
  const std::string nul("x\0y", 3);
  HttpResponse r = post("s1", "/env", {{"envVars", {{"A", nul}}}});
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(code_of(r), "VALIDATION_FAILED");
  r = post("s1", "/contexts", {{"binding", "KV"}, {"envVars", {{"A", nul}}}});
  EXPECT_EQ(r.status, 400) << r.body;
  r = post("s1", "/execute", {{"code", "get A"}, {"binding", "KV"}, {"envVars", {{"A", nul}}}});
  EXPECT_EQ(r.status, 400) << r.body;
  // The sandbox is intact and usable.
  r = post("s1", "/execute", {{"code", "incr n"}, {"binding", "KV"}});
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST_P(RequestTextBackends, ContextIdsNoRowCanHaveAreNotFound) {
  ASSERT_EQ(post("s1", "/execute", {{"code", "incr n"}, {"binding", "KV"}}).status, 200);
  HttpResponse r =
      post("s1", "/execute", {{"code", "incr n"}, {"contextId", std::string("a\0b", 3)}});
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_EQ(code_of(r), "CONTEXT_NOT_FOUND");
  // DELETE /contexts/{id} is URL-decoded: %00 and %FF reach the store as bytes.
  for (const char* path : {"/contexts/a%00b", "/contexts/%FF"}) {
    r = service_->handle("s1", "DELETE", path, "");
    EXPECT_EQ(r.status, 404) << path << ": " << r.body;
  }
  // The runtime's own routes, through the binding.
  Binding& kv = *bindings_.find("KV");
  r = kv.fetch("POST", "/interpreters/k1/contexts",
               boost::json::serialize(boost::json::object{{"id", std::string("a\0b", 3)}}));
  EXPECT_EQ(r.status, 400) << r.body;
  r = kv.fetch("DELETE", "/interpreters/k1/contexts/a%00b");
  EXPECT_EQ(r.status, 404) << r.body;
  r = kv.fetch("DELETE", "/interpreters/k1/contexts/%FF");
  EXPECT_EQ(r.status, 404) << r.body;
}

TEST_P(RequestTextBackends, TheSandboxBoundCountsAlike) {
  ASSERT_EQ(service_->handle("s1", "GET", "/", "").status, 200);
  ASSERT_EQ(service_->handle("s2", "GET", "/", "").status, 200);
  EXPECT_EQ(storage_->sandboxes().count_sandboxes(), 2u);
  const HttpResponse r = service_->handle("s3", "GET", "/", "");
  EXPECT_EQ(r.status, 503) << r.body;
  EXPECT_EQ(code_of(r), "NO_SPACE");
  ASSERT_EQ(post("s1", "/execute", {{"code", "incr n"}, {"binding", "KV"}}).status, 200);
  ASSERT_EQ(post("s2", "/execute", {{"code", "incr n"}, {"binding", "KV"}}).status, 200);
  EXPECT_EQ(storage_->interpreters().count_keys_with_contexts(), 2u);
  ASSERT_EQ(service_->handle("s1", "DELETE", "/", "").status, 200);
  EXPECT_EQ(storage_->sandboxes().count_sandboxes(), 1u);
  EXPECT_EQ(storage_->interpreters().count_keys_with_contexts(), 1u);
  EXPECT_EQ(service_->handle("s3", "GET", "/", "").status, 200);
}

INSTANTIATE_TEST_SUITE_P(Backends, RequestTextBackends, kAllBackends, backend_name);

}  // namespace
}  // namespace sandbox::testing_storage

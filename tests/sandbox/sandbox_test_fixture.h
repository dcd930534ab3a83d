// Fixture for the Sandbox actor tests: a SandboxService over a temporary SQLite file with
// built-in engines as local bindings (and optional extra test bindings), a ManualClock, and a
// restart() that recreates everything on the same file.
#pragma once

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <sandbox/clock.h>
#include <sandbox/runtime.h>

#include "interpreter/over_store.h"
#include "sandbox/local_binding.h"
#include "sandbox/sandbox_service.h"
#include "server/sandboxd_fixture.h"
#include "storage/sqlite/sqlite_stores.h"

namespace sandbox::test {

class SandboxFixture : public ::testing::Test {
 protected:
  void start(SandboxOptions options = {}, std::vector<std::string> engines = {"kv", "calc"},
             std::function<void(BindingSet&)> extra = {}) {
    stop();
    options_ = options;
    engines_ = std::move(engines);
    extra_ = std::move(extra);
    storage_ = std::make_unique<SqliteStorage>(dir_.file("sandboxd.db"));
    bindings_ = std::make_unique<BindingSet>();
    for (const auto& name : engines_) {
      bindings_->add(make_local_binding(
          upper(name),
          define_interpreter_runtime(
              make_test_engine(name), storage_->interpreters(),
              RuntimeOptions{.clock = &clock_, .idle_ttl_ms = 0, .background_expiry = false})));
    }
    if (extra_) extra_(*bindings_);
    service_ = std::make_unique<SandboxService>(storage_->sandboxes(), clock_, *bindings_,
                                                SandboxServiceOptions{.sandbox = options_});
  }

  void TearDown() override { stop(); }

  void stop() {
    service_.reset();
    bindings_.reset();
    storage_.reset();
  }

  void restart() { start(options_, engines_, extra_); }

  HttpResponse call(const std::string& id, const std::string& method, const std::string& path,
                    const std::string& body = {}) {
    return service_->handle(id, method, path, body);
  }
  HttpResponse post(const std::string& id, const std::string& path,
                    const boost::json::object& body) {
    return call(id, "POST", path, boost::json::serialize(body));
  }
  // POST and expect `status`; returns the JSON body.
  boost::json::object post_ok(const std::string& id, const std::string& path,
                              const boost::json::object& body, int status = 200) {
    const HttpResponse r = post(id, path, body);
    EXPECT_EQ(r.status, status) << r.body;
    return json_of(r);
  }
  boost::json::object get_ok(const std::string& id, const std::string& path = "/") {
    const HttpResponse r = call(id, "GET", path);
    EXPECT_EQ(r.status, 200) << r.body;
    return json_of(r);
  }

  // The text of the single result entry of an execution ("" when none).
  static std::string result_text(const boost::json::object& result) {
    const auto* results = result.if_contains("results");
    if (!results || !results->is_array() || results->get_array().empty()) return "";
    const auto& entry = results->get_array()[0].get_object();
    if (const auto* t = entry.if_contains("text"); t && t->is_string()) {
      return std::string(t->get_string());
    }
    return boost::json::serialize(entry);
  }

  std::string run(const std::string& id, const std::string& code, const std::string& binding) {
    return result_text(post_ok(id, "/execute", {{"code", code}, {"binding", binding}}));
  }

  TempDir dir_;
  ManualClock clock_;
  SandboxOptions options_;
  std::vector<std::string> engines_;
  std::function<void(BindingSet&)> extra_;
  std::unique_ptr<SqliteStorage> storage_;
  std::unique_ptr<BindingSet> bindings_;
  std::unique_ptr<SandboxService> service_;
};

}  // namespace sandbox::test

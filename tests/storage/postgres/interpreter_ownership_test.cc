// Ownership wired into the InterpreterServer's per-key actor (storage/lease.h), on both backends:
// two servers over two store instances with different node ids play two nodes sharing one
// database. A key moves between them only when its owner's lease is released or has run out,
// and a node that gets a key back drops what it had cached and continues from storage.
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include <sandbox/interpreter.h>

#include "interpreter/over_store.h"
#include "storage/storage_backends.h"
#include "support/fake_session_engine.h"

namespace sandbox {
namespace {

using namespace std::chrono_literals;

class Node {
 public:
  Node(testing_storage::TestDatabase& db, const char* id, std::int64_t ttl_ms, const Clock& clock)
      : storage_(db.open(nullptr, {id, ttl_ms})),
        engine_(test::make_fake_session_engine(stats_)),
        server_(make_interpreter_server(engine_, storage_->interpreters(), clock)) {}

  InterpreterExecuteResult exec(const std::string& code) {
    return server_->execute_in_context("key-1", {"ctx", code, {}, {}}, nullptr);
  }
  // The counter after `code`, or "status N: message" for a failed call.
  std::string run(const std::string& code) {
    const auto r = exec(code);
    if (const auto* e = std::get_if<InterpreterCallError>(&r)) {
      return "status " + std::to_string(e->status) + ": " + e->body.message;
    }
    const auto& ok = std::get<InterpreterExecuteResponse>(r);
    return ok.result.outcome.results.empty() ? "" : ok.result.outcome.results[0].text.value_or("");
  }
  InterpreterServer& server() { return *server_; }
  Storage& storage() { return *storage_; }
  test::FakeEngineStats& stats() { return stats_; }

 private:
  std::unique_ptr<Storage> storage_;
  test::FakeEngineStats stats_;
  Engine engine_;
  std::unique_ptr<InterpreterServer> server_;
};

class InterpreterOwnership : public testing_storage::BackendTest {
 protected:
  ManualClock clock_;
};

TEST_P(InterpreterOwnership, AKeyMovesBetweenNodesAndContinuesFromItsSnapshot) {
  Node a(db(), "node-a", 30'000, clock_);
  Node b(db(), "node-b", 300, clock_);
  ASSERT_EQ(a.server().handle("key-1", "POST", "/contexts", R"({"id":"ctx"})").status, 201);
  EXPECT_EQ(a.run("incr"), "1");
  EXPECT_EQ(a.run("incr"), "2");

  // node-a holds the key: node-b answers 503 and touches nothing.
  const std::string refused = b.run("incr");
  EXPECT_NE(refused.find("status 503"), std::string::npos) << refused;
  EXPECT_NE(refused.find("node-a"), std::string::npos) << refused;
  EXPECT_EQ(b.server().handle("key-1", "DELETE", "/", "").status, 503);

  // node-a stops (a graceful stop releases): node-b restores node-a's snapshot and goes on.
  a.storage().release_all_leases();
  EXPECT_EQ(b.run("incr"), "3");
  EXPECT_EQ(b.stats().restores.load(), 1);
  EXPECT_EQ(b.stats().boots.load(), 0);

  // node-a still has its instance resident at 2, but the key is node-b's now.
  EXPECT_NE(a.run("incr").find("status 503"), std::string::npos);

  // node-b dies (no release); once its lease runs out node-a takes the key back, drops its stale
  // instance and continues from node-b's snapshot: 4, not 3.
  std::this_thread::sleep_for(400ms);
  const int restores_before = a.stats().restores.load();
  EXPECT_EQ(a.run("incr"), "4");
  EXPECT_EQ(a.stats().restores.load(), restores_before + 1);
  EXPECT_EQ(a.run("incr"), "5");
  EXPECT_EQ(a.stats().restores.load(), restores_before + 1);  // resident again
}

TEST_P(InterpreterOwnership, IdleExpirySkipsAKeyAnotherNodeHolds) {
  Node a(db(), "node-a", 30'000, clock_);
  Node b(db(), "node-b", 30'000, clock_);
  ASSERT_EQ(a.server().handle("key-1", "POST", "/contexts", R"({"id":"ctx"})").status, 201);
  EXPECT_EQ(a.run("incr"), "1");
  clock_.advance(kDefaultIdleTtlMs + 1);
  // node-b sees the due alarm in the shared database, but node-a owns the key.
  EXPECT_EQ(b.server().run_due_alarms(), 0);
  ASSERT_TRUE(b.server().next_alarm().has_value());
  EXPECT_GT(*b.server().next_alarm(), clock_.now_ms());  // deferred, not due again at once
  EXPECT_EQ(b.server().run_due_alarms(), 0);
  EXPECT_TRUE(a.storage().interpreters().get_meta("key-1").has_value());
  // The owner expires it.
  EXPECT_EQ(a.server().run_due_alarms(), 1);
  EXPECT_EQ(a.storage().interpreters().get_meta("key-1"), std::nullopt);
}

INSTANTIATE_TEST_SUITE_P(Backends, InterpreterOwnership, testing_storage::kAllBackends,
                         testing_storage::backend_name);

}  // namespace
}  // namespace sandbox

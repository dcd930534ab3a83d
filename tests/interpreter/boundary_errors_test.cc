// What the runtime's InterpreterServer answers for failures found below it, over a real SQLite
// database (docs/errors.md#exceptions-at-the-boundaries):
// - a corrupt stored snapshot is a stored row that is not a valid row, 500 INTERNAL_ERROR
//   "Stored snapshot is unreadable: ..." (it answered 502 "Engine execution failed");
// - a key another node holds is 503 "Interpreter key unavailable on this node: ...; retry later"
//   from the lease error itself (it was remapped by hand);
// - a stored context reaching an engine without sessions is 500 "This engine has no session
//   support" wherever it is found.
#include <filesystem>
#include <memory>
#include <string>

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>
#include <unistd.h>

#include <sandbox/interpreter.h>

#include "interpreter/over_store.h"
#include "storage/sqlite/sqlite_handle.h"
#include "storage/sqlite/sqlite_stores.h"
#include "support/fake_session_engine.h"

namespace sandbox {
namespace {

constexpr const char* kIncr =
    R"({"contextId":"ctx-1","code":"incr","workspace":{"dirs":[],"manifest":{}}})";

boost::json::object json_of(const HttpResponse& r) {
  return boost::json::parse(r.body).as_object();
}

class InterpreterBoundaryErrors : public ::testing::Test {
 protected:
  InterpreterBoundaryErrors()
      : dir_(std::filesystem::temp_directory_path() /
             ("boundary-errors-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    engine_ = test::make_fake_session_engine(stats_);
  }
  ~InterpreterBoundaryErrors() override { std::filesystem::remove_all(dir_); }

  std::string db() const { return (dir_ / "db.sqlite").string(); }

  std::unique_ptr<SqliteStorage> open(const std::string& node) {
    SqliteOptions options;
    options.lease.node_id = node;
    return std::make_unique<SqliteStorage>(db(), options);
  }

  std::filesystem::path dir_;
  ManualClock clock_;
  test::FakeEngineStats stats_;
  Engine engine_;
};

TEST_F(InterpreterBoundaryErrors, ACorruptStoredSnapshotIs500InternalNot502) {
  auto storage = open("node-a");
  {
    const auto server = make_interpreter_server(engine_, storage->interpreters(), clock_);
    ASSERT_EQ(server->handle("key-1", "POST", "/contexts", R"({"id":"ctx-1"})").status, 201);
    const HttpResponse r = server->handle("key-1", "POST", "/execute", kIncr);
    ASSERT_EQ(r.status, 200) << r.body;
  }
  // The snapshot's chunks on disk stop being chunks (a torn write, a bad sector, a hand edit).
  {
    SqliteConnection raw(db());
    raw.exec("UPDATE chunks SET data = x'00010203'");
  }
  const int restores = stats_.restores;
  const auto restarted = make_interpreter_server(engine_, storage->interpreters(), clock_);
  for (int attempt = 0; attempt < 2; ++attempt) {  // the same row fails the same way again
    const HttpResponse r = restarted->handle("key-1", "POST", "/execute", kIncr);
    EXPECT_EQ(r.status, 500) << r.body;
    const auto body = json_of(r);
    EXPECT_EQ(body.at("code"), "INTERNAL_ERROR") << r.body;
    EXPECT_EQ(body.at("httpStatus"), 500) << r.body;
    const std::string message(body.at("message").as_string());
    EXPECT_EQ(message.rfind("Stored snapshot is unreadable: ", 0), 0u) << message;
    EXPECT_EQ(message.find("Engine execution failed"), std::string::npos) << message;
  }
  EXPECT_GT(stats_.restores, restores);  // it was the restore that found it
  // The row is kept as it was, its snapshot record included.
  const auto row = storage->interpreters().get_context("key-1", "ctx-1");
  ASSERT_TRUE(row);
  ASSERT_TRUE(row->contains("snapshot"));
  EXPECT_TRUE(row->at("snapshot").is_object());
}

TEST_F(InterpreterBoundaryErrors, AKeyAnotherNodeHoldsIsARetryable503NamingTheKey) {
  auto a = open("node-a");
  auto b = open("node-b");
  const auto on_a = make_interpreter_server(engine_, a->interpreters(), clock_);
  const auto on_b = make_interpreter_server(engine_, b->interpreters(), clock_);
  ASSERT_EQ(on_a->handle("key-1", "POST", "/contexts", R"({"id":"ctx-1"})").status, 201);
  for (const HttpResponse& r : {on_b->handle("key-1", "POST", "/execute", kIncr),
                                on_b->handle("key-1", "POST", "/contexts", R"({"id":"ctx-2"})")}) {
    EXPECT_EQ(r.status, 503) << r.body;
    const auto body = json_of(r);
    EXPECT_EQ(body.at("code"), "INTERNAL_ERROR");
    const std::string message(body.at("message").as_string());
    EXPECT_EQ(message.rfind("Interpreter key unavailable on this node: interpreter 'key-1' is "
                            "owned by node 'node-a' for another ",
                            0),
              0u)
        << message;
    EXPECT_TRUE(message.ends_with(" ms; retry later")) << message;
  }
  // The in-process call path (a Sandbox's local binding) answers the same.
  InterpreterExecuteArgs args;
  args.context_id = "ctx-1";
  args.code = "incr";
  const auto call = on_b->execute_in_context("key-1", args, {});
  const auto* error = std::get_if<InterpreterCallError>(&call);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->status, 503);
  EXPECT_EQ(error->body.message.rfind("Interpreter key unavailable on this node: ", 0), 0u)
      << error->body.message;
}

TEST_F(InterpreterBoundaryErrors, AStoredContextOnAnEngineWithoutSessionsIs500Internal) {
  auto storage = open("node-a");
  {
    const auto server = make_interpreter_server(engine_, storage->interpreters(), clock_);
    ASSERT_EQ(server->handle("key-1", "POST", "/contexts", R"({"id":"ctx-1"})").status, 201);
    ASSERT_EQ(server->handle("key-1", "POST", "/execute", kIncr).status, 200);
  }
  Engine stateless = engine_;
  stateless.sessions.reset();
  const auto server = make_interpreter_server(stateless, storage->interpreters(), clock_);
  const HttpResponse r = server->handle("key-1", "POST", "/execute", kIncr);
  EXPECT_EQ(r.status, 500) << r.body;
  EXPECT_EQ(json_of(r).at("message"), "This engine has no session support") << r.body;
}

}  // namespace
}  // namespace sandbox

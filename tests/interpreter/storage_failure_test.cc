// A storage failure is one kind (ErrorKind::kStorageFailure, docs/errors.md) on every path: the
// runtime answered it 502 "Engine execution failed" while sandboxd answered 500 "Storage
// failure: ...".
#include <filesystem>

#include <gtest/gtest.h>

#include <sandbox/interpreter.h>

#include "interpreter/over_store.h"
#include "storage/fault_injector.h"
#include "storage/sqlite/sqlite_stores.h"
#include "storage/storage_error.h"
#include "support/fake_session_engine.h"

namespace sandbox {
namespace {

// Every write fails as a storage backend does (StorageError) while armed.
class FailingWrites final : public FaultInjector {
 public:
  bool armed = false;
  void before_write(std::string_view) override {
    if (armed) throw StorageError("disk I/O error");
  }
};

class RuntimeStorageFailure : public ::testing::Test {
 protected:
  RuntimeStorageFailure()
      : dir_(std::filesystem::temp_directory_path() /
             ("storage-failure-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    SqliteOptions options;
    options.fault_injector = &fault_;
    storage_ = std::make_unique<SqliteStorage>((dir_ / "db.sqlite").string(), options);
    engine_ = test::make_fake_session_engine(stats_);
    server_ = make_interpreter_server(engine_, storage_->interpreters(), clock_);
  }
  ~RuntimeStorageFailure() override {
    server_.reset();
    storage_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::filesystem::path dir_;
  FailingWrites fault_;
  ManualClock clock_;
  test::FakeEngineStats stats_;
  Engine engine_;
  std::unique_ptr<SqliteStorage> storage_;
  std::unique_ptr<InterpreterServer> server_;
};

TEST_F(RuntimeStorageFailure, AStorageFailureOnARuntimeRouteIs500LikeSandboxd) {
  fault_.armed = true;
  const HttpResponse r = server_->handle("key-1", "POST", "/contexts", R"({"id":"ctx-1"})");
  EXPECT_EQ(r.status, 500) << r.body;
  EXPECT_NE(r.body.find(R"("code":"INTERNAL_ERROR")"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"("message":"Storage failure: disk I/O error")"), std::string::npos)
      << r.body;
}

TEST_F(RuntimeStorageFailure, AStorageFailureDeletingAContextIs500LikeSandboxd) {
  ASSERT_EQ(server_->handle("key-1", "POST", "/contexts", R"({"id":"ctx-1"})").status, 201);
  fault_.armed = true;
  const HttpResponse r = server_->handle("key-1", "DELETE", "/contexts/ctx-1", "");
  EXPECT_EQ(r.status, 500) << r.body;
  EXPECT_NE(r.body.find(R"("message":"Storage failure: disk I/O error")"), std::string::npos)
      << r.body;
}

}  // namespace
}  // namespace sandbox

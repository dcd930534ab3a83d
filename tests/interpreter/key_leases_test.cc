// Lease handling of the interpreter server (interpreter/key_leases.h) over real SQLite, two
// "nodes" being two stores with different node ids on one database file.
#include "interpreter/key_leases.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "storage/sqlite/sqlite_stores.h"

namespace sandbox {
namespace {

class KeyLeasesTest : public ::testing::Test {
 protected:
  KeyLeasesTest()
      : dir_(std::filesystem::temp_directory_path() /
             ("leases-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    a_ = node("node-a");
    b_ = node("node-b");
  }
  ~KeyLeasesTest() override {
    a_.reset();
    b_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::unique_ptr<SqliteStorage> node(const std::string& id) {
    SqliteOptions options;
    options.lease = {.node_id = id, .ttl_ms = 60'000};
    return std::make_unique<SqliteStorage>((dir_ / "db.sqlite").string(), options);
  }

  std::filesystem::path dir_;
  std::unique_ptr<SqliteStorage> a_;
  std::unique_ptr<SqliteStorage> b_;
};

TEST_F(KeyLeasesTest, AKeyHeldByAnotherNodeIsRefused) {
  KeyLeases on_a(a_->interpreters());
  KeyLeases on_b(b_->interpreters());
  const LeaseGrant first = on_a.claim("k");
  EXPECT_TRUE(first.acquired);
  EXPECT_GT(first.token, 0);
  const LeaseGrant renewed = on_a.claim("k");
  EXPECT_FALSE(renewed.acquired);
  EXPECT_EQ(renewed.token, first.token);
  try {
    on_b.claim("k");
    FAIL() << "node b took a live lease";
  } catch (const LeaseHeldError& e) {
    EXPECT_EQ(e.owner(), "node-a");
    EXPECT_GT(e.remaining_ms(), 0);
  }
}

TEST_F(KeyLeasesTest, ADeferredAlarmWaitsAndAClaimLiftsTheDeferral) {
  KeyLeases leases(a_->interpreters());
  EXPECT_FALSE(leases.deferred("k", 1'000));
  EXPECT_EQ(leases.effective_deadline("k", 500), 500);
  leases.defer("k", 1'000, 5);  // a lease about to run out: at least the minimum deferral
  EXPECT_TRUE(leases.deferred("k", 1'000 + KeyLeases::kMinAlarmDeferralMs - 1));
  EXPECT_FALSE(leases.deferred("k", 1'000 + KeyLeases::kMinAlarmDeferralMs));
  EXPECT_EQ(leases.effective_deadline("k", 500), 1'000 + KeyLeases::kMinAlarmDeferralMs);
  EXPECT_EQ(leases.effective_deadline("k", 5'000), 5'000);
  leases.defer("k", 1'000, 3'000);
  EXPECT_TRUE(leases.deferred("k", 3'999));
  leases.claim("k");
  EXPECT_FALSE(leases.deferred("k", 1'000));
  EXPECT_EQ(leases.effective_deadline("k", 500), 500);
}

TEST_F(KeyLeasesTest, ALeaseTakenForAnAlarmIsGivenBack) {
  KeyLeases on_a(a_->interpreters());
  KeyLeases on_b(b_->interpreters());
  {
    const AlarmLease give_back(a_->interpreters(), "k", on_a.claim("k"));
  }
  EXPECT_NO_THROW(on_b.claim("k"));  // released: node b takes it at once
}

TEST_F(KeyLeasesTest, ALeaseHeldBeforeTheAlarmIsKept) {
  KeyLeases on_a(a_->interpreters());
  KeyLeases on_b(b_->interpreters());
  on_a.claim("k");
  {
    const AlarmLease keep(a_->interpreters(), "k", on_a.claim("k"));  // a renewal
  }
  EXPECT_THROW(on_b.claim("k"), LeaseHeldError);
}

}  // namespace
}  // namespace sandbox

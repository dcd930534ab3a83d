// Ownership among several nodes (storage/lease.h), on both backends: two store instances with
// different node ids over one database play two nodes contending for a key.
#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "storage/storage_backends.h"
#include "storage/storage_error.h"

namespace sandbox {
namespace {

using namespace std::chrono_literals;
using testing_storage::BackendTest;

LeaseOptions node(const char* id, std::int64_t ttl_ms = 30'000) { return {id, ttl_ms}; }

SnapshotWrite snapshot_of(std::uint8_t fill, int version) {
  SnapshotWrite w;
  w.upserts = {{0, std::vector<std::uint8_t>(1000, fill)},
               {1, std::vector<std::uint8_t>(10, fill)}};
  w.context_row = {{"id", "ctx"}, {"version", version}};
  return w;
}

// Once armed, blocks the first write statement it sees until released (then lets all pass).
class HoldFirstWrite final : public FaultInjector {
 public:
  void arm() { armed_ = true; }
  void before_write(std::string_view) override {
    if (!armed_ || held_) return;
    held_ = true;
    reached_.set_value();
    release_.get_future().wait();
  }
  std::future<void> reached() { return reached_.get_future(); }
  void release() { release_.set_value(); }

 private:
  std::atomic<bool> armed_{false};
  bool held_ = false;
  std::promise<void> reached_;
  std::promise<void> release_;
};

class LeaseTest : public BackendTest {};

TEST_P(LeaseTest, AcquireRenewAndRelease) {
  auto a = db().open(nullptr, node("a"));
  auto& store = a->interpreters();
  const LeaseGrant first = store.acquire_lease("k");
  EXPECT_EQ(first.token, 1);
  EXPECT_TRUE(first.acquired);
  const LeaseGrant again = store.acquire_lease("k");
  EXPECT_EQ(again.token, 1);
  EXPECT_FALSE(again.acquired);
  store.put_meta("k", {{"format", 4}});
  // Lease rows are not state: the key lists only because of its meta.
  EXPECT_EQ(store.list_keys(), (std::vector<std::string>{"k"}));
  store.release_lease("k");
  // Released: the same node takes it again as a new grant (another could have had it meanwhile).
  const LeaseGrant after = store.acquire_lease("k");
  EXPECT_EQ(after.token, 2);
  EXPECT_TRUE(after.acquired);
  // Interpreter keys and sandbox ids are separate scopes.
  EXPECT_EQ(a->sandboxes().acquire_lease("k").token, 1);
}

TEST_P(LeaseTest, ALiveLeaseIsRefusedToAnotherNode) {
  auto a = db().open(nullptr, node("node-a"));
  auto b = db().open(nullptr, node("node-b"));
  a->interpreters().acquire_lease("k");
  try {
    b->interpreters().acquire_lease("k");
    FAIL() << "node-b took a live lease";
  } catch (const LeaseHeldError& e) {
    EXPECT_EQ(e.owner(), "node-a");
    EXPECT_GT(e.remaining_ms(), 20'000);
    EXPECT_NE(std::string(e.what()).find("node-a"), std::string::npos) << e.what();
  }
  // Writes without a lease are refused too while node-a's lease lives (guarantee 2)...
  EXPECT_THROW(b->interpreters().put_meta("k", {{"by", "b"}}), FencedWriteError);
  EXPECT_EQ(a->interpreters().get_meta("k"), std::nullopt);
  // ... but another key is free.
  EXPECT_TRUE(b->interpreters().acquire_lease("other").acquired);
  // After a release node-b takes over at once, with a new token.
  a->release_all_leases();
  const LeaseGrant taken = b->interpreters().acquire_lease("k");
  EXPECT_EQ(taken.token, 2);
  EXPECT_TRUE(taken.acquired);
}

TEST_P(LeaseTest, TheNewOwnersTokenWinsAndTheOldOwnersWritesAreRefused) {
  auto a = db().open(nullptr, node("node-a", 300));
  auto b = db().open(nullptr, node("node-b", 30'000));
  auto& old_owner = a->interpreters();
  auto& new_owner = b->interpreters();
  ASSERT_EQ(old_owner.acquire_lease("k").token, 1);
  old_owner.write_snapshot("k", "ctx", snapshot_of(0xA, 1));
  a->sandboxes().acquire_lease("sb");
  a->sandboxes().put_meta("sb", {{"format", 1}, {"by", "a"}});

  std::this_thread::sleep_for(400ms);  // node-a's leases expire (it is "paused")
  const LeaseGrant taken = new_owner.acquire_lease("k");
  EXPECT_EQ(taken.token, 2);
  EXPECT_TRUE(taken.acquired);
  ASSERT_TRUE(b->sandboxes().acquire_lease("sb").acquired);
  new_owner.write_snapshot("k", "ctx", snapshot_of(0xB, 2));
  b->sandboxes().put_meta("sb", {{"format", 1}, {"by", "b"}});

  // node-a wakes up and writes with its stale token: every write method is refused.
  EXPECT_THROW(old_owner.write_snapshot("k", "ctx", snapshot_of(0xA, 3)), FencedWriteError);
  EXPECT_THROW(old_owner.put_meta("k", {{"by", "a"}}), FencedWriteError);
  EXPECT_THROW(old_owner.put_context("k", "ctx", {{"by", "a"}}), FencedWriteError);
  EXPECT_THROW(old_owner.drop_snapshot("k", "ctx", std::nullopt), FencedWriteError);
  EXPECT_THROW(old_owner.delete_context("k", "ctx"), FencedWriteError);
  EXPECT_THROW(old_owner.set_alarm("k", 5), FencedWriteError);
  EXPECT_THROW(old_owner.wipe("k"), FencedWriteError);
  try {
    a->sandboxes().persist("sb", {}, StoredRow{"c", {{"by", "a"}}});
    FAIL() << "a stale sandbox write went through";
  } catch (const FencedWriteError& e) {
    EXPECT_NE(std::string(e.what()).find("node-b"), std::string::npos) << e.what();
  }
  EXPECT_THROW(a->sandboxes().put_meta("sb", {{"by", "a"}}), FencedWriteError);
  EXPECT_THROW(a->sandboxes().wipe("sb"), FencedWriteError);

  // Nothing of node-a's got in: the new owner's snapshot is intact.
  const StoredChunks chunks = new_owner.read_chunks("k", "ctx");
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks.at(0), std::vector<std::uint8_t>(1000, 0xB));
  EXPECT_EQ(new_owner.get_context("k", "ctx"),
            (boost::json::object{{"id", "ctx"}, {"version", 2}}));
  EXPECT_EQ(new_owner.get_alarm("k"), std::nullopt);
  EXPECT_EQ(b->sandboxes().get_meta("sb"), (boost::json::object{{"format", 1}, {"by", "b"}}));
  EXPECT_EQ(b->sandboxes().get_context("sb", "c"), std::nullopt);

  // node-a cannot take the key back while node-b's lease lives.
  EXPECT_THROW(old_owner.acquire_lease("k"), LeaseHeldError);
  // node-b's writes keep working.
  new_owner.put_meta("k", {{"format", 4}});
}

TEST_P(LeaseTest, ATakeOverWaitsForAWriteInFlight) {
  HoldFirstWrite hold;
  auto a = db().open(&hold, node("node-a", 200));
  auto b = db().open(nullptr, node("node-b"));
  ASSERT_EQ(a->interpreters().acquire_lease("k").token, 1);
  // node-a's snapshot write passes its fence check, then stalls past its lease's expiry.
  hold.arm();
  auto writing = std::async(std::launch::async, [&] {
    a->interpreters().write_snapshot("k", "ctx", snapshot_of(0xA, 1));
  });
  hold.reached().wait();
  std::this_thread::sleep_for(300ms);
  // node-b's take-over must wait until the write in flight is over...
  auto taking =
      std::async(std::launch::async, [&] { return b->interpreters().acquire_lease("k"); });
  EXPECT_EQ(taking.wait_for(300ms), std::future_status::timeout);
  hold.release();
  writing.get();
  const LeaseGrant taken = taking.get();
  EXPECT_EQ(taken.token, 2);
  // ... so what it reads after taking over includes it, and node-a's next write is refused.
  EXPECT_EQ(b->interpreters().get_context("k", "ctx"),
            (boost::json::object{{"id", "ctx"}, {"version", 1}}));
  EXPECT_THROW(a->interpreters().write_snapshot("k", "ctx", snapshot_of(0xA, 2)), FencedWriteError);
}

TEST_P(LeaseTest, ARestartedNodeTakesItsKeysBackAtOnce) {
  {
    auto before = db().open(nullptr, node("node-a"));
    EXPECT_EQ(before->interpreters().acquire_lease("k").token, 1);
    before->interpreters().put_meta("k", {{"format", 4}});
  }  // crashed: no release
  auto other = db().open(nullptr, node("node-b"));
  EXPECT_THROW(other->interpreters().acquire_lease("k"), LeaseHeldError);
  auto after = db().open(nullptr, node("node-a"));
  const LeaseGrant again = after->interpreters().acquire_lease("k");
  EXPECT_EQ(again.token, 2);  // a new token: the old process's writes are fenced off
  EXPECT_TRUE(again.acquired);
  after->interpreters().put_meta("k", {{"format", 4}, {"restarted", true}});
  EXPECT_EQ(after->interpreters().get_meta("k"),
            (boost::json::object{{"format", 4}, {"restarted", true}}));
}

TEST_P(LeaseTest, TokensKeepGrowingAcrossWipes) {
  auto a = db().open(nullptr, node("node-a"));
  auto b = db().open(nullptr, node("node-b"));
  a->sandboxes().acquire_lease("sb");
  a->sandboxes().put_meta("sb", {{"format", 1}});
  a->sandboxes().wipe("sb");
  EXPECT_TRUE(a->sandboxes().list_sandbox_ids().empty());
  a->sandboxes().release_lease("sb");
  EXPECT_EQ(b->sandboxes().acquire_lease("sb").token, 2);
  b->sandboxes().release_lease("sb");
  EXPECT_EQ(a->sandboxes().acquire_lease("sb").token, 3);
  // A store without grants on a key whose lease expired (or was released) may write.
  a->sandboxes().release_lease("sb");
  b->sandboxes().put_meta("sb", {{"format", 1}, {"by", "b"}});
  EXPECT_EQ(a->sandboxes().get_meta("sb"), (boost::json::object{{"format", 1}, {"by", "b"}}));
}

INSTANTIATE_TEST_SUITE_P(Backends, LeaseTest, testing_storage::kAllBackends,
                         testing_storage::backend_name);

}  // namespace
}  // namespace sandbox

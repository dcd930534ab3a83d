// The resident cache (interpreter/resident_cache.h; docs/contexts.md#cl10): the least recently
// used idle key loses its instance and mirror, busy keys are never touched, and actors nobody
// holds are forgotten.
#include "interpreter/resident_cache.h"

#include <gtest/gtest.h>

#include "support/fake_session_engine.h"

namespace sandbox {
namespace {

class ResidentCacheTest : public ::testing::Test {
 protected:
  // Gives `key` a live fake instance, as make_live would, and marks it used.
  std::shared_ptr<KeyState> live(ResidentCache& cache, const std::string& key) {
    auto state = cache.state_for(key);
    Resident r;
    r.context_id = "ctx";
    r.instance = engine_.sessions->boot({.workspace = state->mirror.get()});
    state->resident = std::move(r);
    cache.note_used(*state);
    return state;
  }

  ManualClock clock_;
  test::FakeEngineStats stats_;
  Engine engine_ = test::make_fake_session_engine(stats_, "fake-1");
};

TEST_F(ResidentCacheTest, TheSameKeyGetsTheSameActor) {
  ResidentCache cache(clock_, 4);
  EXPECT_EQ(cache.state_for("a"), cache.state_for("a"));
  EXPECT_NE(cache.state_for("a"), cache.state_for("b"));
}

TEST_F(ResidentCacheTest, EvictsTheLeastRecentlyUsedIdleKeys) {
  ResidentCache cache(clock_, 2);
  auto a = live(cache, "a");
  auto b = live(cache, "b");
  auto c = live(cache, "c");
  a->mirror->write("/workspace/f.txt", "x");
  EXPECT_EQ(cache.resident_count(), 3u);
  EXPECT_EQ(cache.enforce_cap(c.get()), 1u);
  EXPECT_FALSE(a->resident);  // the oldest went, with its mirror
  EXPECT_FALSE(a->mirror->exists("/workspace/f.txt"));
  EXPECT_TRUE(b->resident);
  EXPECT_TRUE(c->resident);
  EXPECT_EQ(stats_.closes.load(), 1);
  EXPECT_EQ(cache.resident_count(), 2u);

  cache.note_used(*b);  // b is now newer than c
  auto d = live(cache, "d");
  cache.enforce_cap(d.get());
  EXPECT_FALSE(c->resident);
  EXPECT_TRUE(b->resident);
}

TEST_F(ResidentCacheTest, ABusyKeyCountsAsResidentButIsNeverEvicted) {
  ResidentCache cache(clock_, 1);
  auto a = live(cache, "a");
  auto b = live(cache, "b");
  a->lock.lock();  // a call on `a` is in progress
  EXPECT_EQ(cache.enforce_cap(b.get()), 0u);
  EXPECT_TRUE(a->resident);
  EXPECT_EQ(cache.resident_count(), 2u);
  auto idle = cache.state_for("idle");  // no resident, not busy: not counted
  EXPECT_EQ(cache.resident_count(), 2u);
  a->lock.unlock();
  EXPECT_EQ(cache.enforce_cap(b.get()), 1u);
  EXPECT_FALSE(a->resident);
}

TEST_F(ResidentCacheTest, AnEvictedActorNobodyHoldsIsForgotten) {
  ResidentCache cache(clock_, 1);
  {
    auto a = live(cache, "a");
    a->meta_ensured = true;  // a mark an eviction alone does not clear
  }
  auto b = live(cache, "b");
  cache.enforce_cap(b.get());
  EXPECT_FALSE(cache.state_for("a")->meta_ensured);  // a new actor
}

TEST_F(ResidentCacheTest, AnEvictedActorStillHeldIsKept) {
  ResidentCache cache(clock_, 1);
  auto a = live(cache, "a");
  a->meta_ensured = true;
  auto b = live(cache, "b");
  cache.enforce_cap(b.get());
  EXPECT_EQ(cache.state_for("a"), a);
  EXPECT_TRUE(a->meta_ensured);
}

TEST_F(ResidentCacheTest, CloseAllClosesEveryResident) {
  ResidentCache cache(clock_, 8);
  auto a = live(cache, "a");
  auto b = live(cache, "b");
  cache.close_all();
  EXPECT_FALSE(a->resident);
  EXPECT_FALSE(b->resident);
  EXPECT_EQ(stats_.closes.load(), 2);
  EXPECT_EQ(cache.resident_count(), 0u);
}

TEST_F(ResidentCacheTest, DropResidentWithoutOneDoesNothing) {
  KeyState state(clock_);
  drop_resident(state);
  EXPECT_FALSE(state.resident);
  EXPECT_EQ(stats_.closes.load(), 0);
}

}  // namespace
}  // namespace sandbox

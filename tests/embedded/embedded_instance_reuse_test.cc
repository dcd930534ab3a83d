// Instances passed from one caller to the next
// (docs/snapshot-format.md#restoring-into-an-idle-instance): a session boots or restores into an
// idle instance of the engine (a stateless run's, or an ended session's, reset to the image), and
// an ended session's instance goes back to the idle list. Held to: a restore into a reused instance
// equals a fresh restore byte for byte (outside the random state each copy reseeds), nothing of the
// earlier tenant survives (variables, environment, files, descriptors), the dirty set of a reused
// instance misses no write (guest, host call, growth), and the reuse saves the page faults it
// exists for.
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "embedded/abi_driver.h"
#include "embedded/engine_state.h"
#include "embedded/session.h"
#include "embedded_test_util.h"
#include "support/proc_memory.h"

namespace sandbox {
namespace {

using embedded::EmbeddedSession;
using embedded::EngineState;
using namespace testing_embedded;

constexpr std::size_t kBlock = 4096;

std::shared_ptr<EngineState> probe_state(std::size_t idle_instances) {
  EmbeddedLanguage language = probe_language();
  language.idle_instances = idle_instances;
  return std::make_shared<EngineState>(
      probe_module(), std::move(language),
      std::make_shared<embedded::AbiDriver>(probe_module(), nullptr, ""));
}

// A stored snapshot as a delta from the engine's image: the pages that differ from it.
SnapshotSource delta_of(const StoredSnapshot& whole, const SnapshotBase& base) {
  SnapshotSource delta = whole.source();
  delta.base_fingerprint = base.fingerprint;
  delta.base_delta_pages.emplace();
  for (std::uint32_t p = 0; p < whole.pages; ++p) {
    const auto it = whole.data.find(p);
    const std::uint8_t* in_base = p < base.pages ? base.page_bytes[p] : nullptr;
    const bool differs =
        it == whole.data.end()
            ? in_base != nullptr
            : in_base == nullptr || std::memcmp(it->second.data(), in_base, kWasmPageBytes) != 0;
    if (differs) delta.base_delta_pages->push_back(p);
  }
  return delta;
}

std::string text(SessionInstance& s, const std::string& code) {
  const SessionOutcome o = s.execute(req(code));
  if (o.error) return "error " + o.error->name + ": " + o.error->message;
  return text_of(o);
}

// "" when `code` ran without a guest error, else the error.
std::string ok(SessionInstance& s, const std::string& code) {
  const SessionOutcome o = s.execute(req(code));
  return o.error ? "error " + o.error->name + ": " + o.error->message : "";
}

class InstanceReuse : public ::testing::Test {
 protected:
  std::unique_ptr<SessionInstance> restore(const std::shared_ptr<EngineState>& state, Workspace& ws,
                                           const SnapshotSource& source) {
    return EmbeddedSession::restore(state, SessionOptions{.workspace = &ws}, source);
  }
  // Tenant a's context: booted on ws_a_, `code` run (its text result must be `expect`), its
  // snapshot kept in `out`; then the session ends, and its instance goes back to the idle list.
  void ended_context(const std::string& code, const std::string& expect, StoredSnapshot& out) {
    auto a = EmbeddedSession::boot(state_, SessionOptions{.workspace = &ws_a_});
    ASSERT_EQ(text(*a, code), expect);
    out = StoredSnapshot::of(*a);
  }
  // A stateless tenant: runs `code` on an idle (or new) instance with `env` and gives it back
  // as a stateless run does, but without clearing the environment first (the session that
  // gets the instance next must not see it anyway).
  void stateless_tenant(const std::string& code, const std::map<std::string, std::string>& env) {
    const auto image = state_->image();
    auto pooled = state_->take_guest(*image);
    pooled->guest.wasi().set_env(env);
    pooled->guest.reset_fuel();
    state_->driver->after_copy(pooled->guest);
    const GuestReply reply =
        state_->driver->execute(pooled->guest, DriverRequest{code, kWorkspaceRoot, env, true});
    ASSERT_FALSE(reply.error) << reply.error->message;
    state_->give_back(std::move(pooled), *image);
  }

  std::shared_ptr<EngineState> state_ = probe_state(4);
  ManualClock clock_;
  Workspace ws_a_{clock_};
  Workspace ws_b_{clock_};
};

// The blocks where two byte strings of equal length differ.
std::set<std::size_t> differing_blocks(std::span<const std::uint8_t> a,
                                       std::span<const std::uint8_t> b) {
  std::set<std::size_t> out;
  for (std::size_t at = 0; at < a.size(); at += kBlock) {
    if (std::memcmp(a.data() + at, b.data() + at, kBlock) != 0) out.insert(at / kBlock);
  }
  return out;
}

TEST_F(InstanceReuse, ARestoreIntoAnIdleInstanceEqualsAFreshRestoreByteForByte) {
  const auto base = state_->snapshot_base();
  ASSERT_NE(base, nullptr);
  StoredSnapshot whole;
  ASSERT_NO_FATAL_FAILURE(ended_context("set x 5\nset y 6\nzerodata\nget x", "5", whole));
  const SnapshotSource delta = delta_of(whole, *base);

  // Fresh restores, from an engine that keeps no idle instance: twice, to find the blocks that
  // after_copy's reseeding makes differ between any two copies.
  const auto fresh_state = probe_state(0);
  ASSERT_EQ(fresh_state->snapshot_base()->fingerprint, base->fingerprint);
  auto f1 = restore(fresh_state, ws_b_, delta);
  auto f2 = restore(fresh_state, ws_b_, delta);
  const std::vector<std::uint8_t> m1(f1->snapshot().memory.begin(), f1->snapshot().memory.end());
  const auto m2 = f2->snapshot().memory;
  ASSERT_EQ(m1.size(), m2.size());
  const std::set<std::size_t> reseeded = differing_blocks(m1, m2);
  EXPECT_LE(reseeded.size(), 2u) << "after_copy changes a few bytes of random state";

  // Idle instances that earlier tenants scribbled on, then a restore into one of them.
  stateless_tenant("set canary scribbled-by-a-stateless-run\nset x 99\nzerodata", {});
  ASSERT_EQ(state_->idle_guests(), 1u);
  auto r = restore(state_, ws_b_, delta);
  EXPECT_EQ(state_->idle_guests(), 0u) << "the restore took the idle instance";
  const auto mr = r->snapshot().memory;
  ASSERT_EQ(mr.size(), m1.size());
  for (const std::size_t block : differing_blocks(m1, mr)) {
    EXPECT_TRUE(reseeded.count(block)) << "block " << block << " differs from a fresh restore";
  }
  EXPECT_EQ(text(*r, "get x"), "5");
  EXPECT_EQ(text(*r, "get canary"), "error KeyError: canary");
  EXPECT_EQ(text(*r, "datasum"), "0");
}

TEST_F(InstanceReuse, NothingOfTheEarlierTenantSurvives) {
  ws_a_.write("/workspace/secret.txt", "tenant a's file");
  auto a = EmbeddedSession::boot(state_, SessionOptions{.workspace = &ws_a_});
  ASSERT_EQ(text(*a, "set canary tenant-a\nopen /workspace/secret.txt\ncloseall\nget canary"),
            "tenant-a");
  a->close();  // an ended session's instance goes back to the idle list
  ASSERT_EQ(state_->idle_guests(), 1u);
  auto b = EmbeddedSession::boot(state_, SessionOptions{.workspace = &ws_b_});
  ASSERT_EQ(state_->idle_guests(), 0u) << "the boot took tenant a's instance";
  EXPECT_EQ(text(*b, "get canary"), "error KeyError: canary");
  EXPECT_EQ(ok(*b, "open /workspace/secret.txt"), "error OSError: No such file or directory");
  // Descriptors are numbered as in a new instance.
  EXPECT_EQ(text(*b, "fdof /stdlib"),
            text(*EmbeddedSession::boot(probe_state(0), SessionOptions{.workspace = &ws_b_}),
                 "fdof /stdlib"));
  b.reset();

  // A stateless run's environment does not reach the session that gets its instance.
  ASSERT_EQ(state_->idle_guests(), 1u);
  auto drained = state_->take_guest(*state_->image());  // leave one idle instance only
  drained.reset();
  stateless_tenant("set canary stateless", {{"TOKEN", "s3cret"}});
  auto c = EmbeddedSession::boot(state_, SessionOptions{.workspace = &ws_b_});
  EXPECT_EQ(text(*c, "env TOKEN"), "<unset>");
  EXPECT_EQ(text(*c, "get canary"), "error KeyError: canary");
  // And the session's workspace is its own, not the scratch tree of a stateless run.
  ws_b_.write("/workspace/mine.txt", "b");
  EXPECT_EQ(ok(*c, "open /workspace/mine.txt"), "");
}

TEST_F(InstanceReuse, AFailedOrGrownSessionsInstanceIsNotKept) {
  auto grown = EmbeddedSession::boot(state_, SessionOptions{.workspace = &ws_a_});
  ASSERT_EQ(ok(*grown, "alloc 1"), "");
  grown->close();
  EXPECT_EQ(state_->idle_guests(), 0u) << "memory that grew cannot go back to the image";
  auto trapped = EmbeddedSession::boot(state_, SessionOptions{.workspace = &ws_a_});
  (void)trapped->execute(req("trap"));
  ASSERT_TRUE(trapped->invalid());
  trapped.reset();
  EXPECT_EQ(state_->idle_guests(), 0u);
  auto open_file = EmbeddedSession::boot(state_, SessionOptions{.workspace = &ws_a_});
  ASSERT_EQ(ok(*open_file, "open /stdlib"), "");
  open_file.reset();
  EXPECT_EQ(state_->idle_guests(), 0u) << "an open descriptor keeps the instance out";
  auto fine = EmbeddedSession::boot(state_, SessionOptions{.workspace = &ws_a_});
  ASSERT_EQ(text(*fine, "set a 1\nget a"), "1");
  fine.reset();  // destroyed without close(): kept as well
  EXPECT_EQ(state_->idle_guests(), 1u);
}

// Every block whose bytes changed between two snapshots of a session restored into a reused
// instance is in the second snapshot's dirty set: guest writes, host calls writing guest memory
// (the request the host copies in, path_open's descriptor) and pages added by growth.
TEST_F(InstanceReuse, TheDirtySetOfAReusedInstanceMissesNoWrite) {
  const auto base = state_->snapshot_base();
  ASSERT_NE(base, nullptr);
  StoredSnapshot whole;
  ASSERT_NO_FATAL_FAILURE(ended_context("set x 1\nget x", "1", whole));
  stateless_tenant("set filler 1\nset more 2\nzerodata", {});
  ASSERT_EQ(state_->idle_guests(), 1u);  // a's, which the stateless tenant used after it
  ws_b_.write("/workspace/data.txt", std::string(10000, 'd'));
  auto r = restore(state_, ws_b_, delta_of(whole, *base));
  ASSERT_TRUE(r->snapshot().dirty_pages.has_value()) << "write tracking is on";
  const std::vector<std::uint8_t> before(r->snapshot().memory.begin(), r->snapshot().memory.end());
  ASSERT_EQ(text(*r, "set x 2\nset y 3\nfdof /workspace/data.txt\nalloc 1\nget y"), "3");
  const SessionSnapshot after = r->snapshot();
  ASSERT_TRUE(after.dirty_pages.has_value());
  std::set<std::size_t> reported;
  for (std::size_t i = 0; i < after.dirty_pages->size(); ++i) {
    for (std::size_t b = 0; b < kWasmPageBytes / kBlock; ++b) {
      if (after.dirty_blocks[i] >> b & 1) {
        reported.insert(std::size_t{(*after.dirty_pages)[i]} * (kWasmPageBytes / kBlock) + b);
      }
    }
  }
  ASSERT_GT(after.memory.size(), before.size()) << "alloc 1 grew the memory";
  std::vector<std::uint8_t> old(after.memory.size(), 0);
  std::memcpy(old.data(), before.data(), before.size());
  const std::set<std::size_t> changed = differing_blocks(old, after.memory);
  EXPECT_GT(changed.size(), 16u) << "the grown megabyte alone is 256 blocks";
  for (const std::size_t block : changed) {
    EXPECT_TRUE(reported.count(block)) << "block " << block << " changed but is not reported";
  }
}

// The reuse exists to save page faults: a restore and a step on an instance that earlier runs
// populated fault less than on a new one. Counted with getrusage: the same on every host.
TEST_F(InstanceReuse, ARestoreIntoAPopulatedInstanceFaultsLessThanIntoANewOne) {
  const auto base = state_->snapshot_base();
  ASSERT_NE(base, nullptr);
  StoredSnapshot whole;  // a's instance, populated by its run, is idle afterwards
  ASSERT_NO_FATAL_FAILURE(ended_context("set x 1\nset y 2\nget x", "1", whole));
  const SnapshotSource delta = delta_of(whole, *base);
  const auto fresh_state = probe_state(0);
  (void)fresh_state->image();
  const auto faults_of = [&](const std::shared_ptr<EngineState>& state) {
    const long before = testing_support::thread_minor_faults();
    auto s = restore(state, ws_b_, delta);
    EXPECT_EQ(text(*s, "set z 3\nget x"), "1");
    (void)s->snapshot();
    return testing_support::thread_minor_faults() - before;
  };
  const long fresh = faults_of(fresh_state);
  ASSERT_EQ(state_->idle_guests(), 1u);
  const long reused = faults_of(state_);
  EXPECT_LT(reused * 2, fresh) << "reused " << reused << ", fresh " << fresh;
}

}  // namespace
}  // namespace sandbox

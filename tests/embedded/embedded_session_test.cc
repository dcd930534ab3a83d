// Sessions of an embedded engine: the state machine of <sandbox/embedded.h>.
#include <gtest/gtest.h>

#include "embedded_test_util.h"

namespace sandbox {
namespace {

using namespace testing_embedded;

class EmbeddedSessions : public ::testing::Test {
 protected:
  std::unique_ptr<SessionInstance> boot(Workspace& ws, std::string cwd = "/workspace") {
    return engine_.sessions->boot(SessionOptions{
        .workspace = &ws, .cwd = std::move(cwd), .on_cwd_change = [this](const std::string& c) {
          cwd_changes_.push_back(c);
        }});
  }
  std::unique_ptr<SessionInstance> restore(Workspace& ws, const StoredSnapshot& snap,
                                           std::string cwd = "/workspace") {
    return engine_.sessions->restore(SessionOptions{.workspace = &ws, .cwd = std::move(cwd)},
                                     snap.source());
  }

  ManualClock clock_;
  Workspace ws_{clock_};
  Engine engine_ = probe_engine();
  std::vector<std::string> cwd_changes_;
};

// A page that held data-segment bytes at instantiation but was all zero at snapshot time has no
// stored bytes; restore must leave it zero, not put the data segment back.
TEST_F(EmbeddedSessions, RestoreClearsDataSegmentPagesThatWereZeroAtSnapshotTime) {
  auto a = boot(ws_);
  EXPECT_NE(text_of(a->execute(req("datasum"))), "0");
  ASSERT_FALSE(a->execute(req("zerodata")).error);
  const StoredSnapshot snap = StoredSnapshot::of(*a);
  Workspace fresh(clock_);
  auto b = restore(fresh, snap);
  EXPECT_EQ(text_of(b->execute(req("datasum"))), "0");
}

TEST_F(EmbeddedSessions, StateLastsAcrossExecutions) {
  auto s = boot(ws_);
  EXPECT_FALSE(s->invalid());
  EXPECT_EQ(s->cwd(), "/workspace");
  EXPECT_FALSE(s->execute(req("set counter 41")).error);
  const SessionOutcome o = s->execute(req("get counter"));
  EXPECT_EQ(text_of(o), "41");
  EXPECT_EQ(o.cwd, "/workspace");
  EXPECT_TRUE(s->can_snapshot());
}

TEST_F(EmbeddedSessions, SnapshotRestoresIntoAFreshInstance) {
  auto a = boot(ws_);
  ASSERT_FALSE(a->execute(req("set name kept across restore\nalloc 2")).error);
  ASSERT_TRUE(a->can_snapshot());
  const StoredSnapshot snap = StoredSnapshot::of(*a);
  EXPECT_EQ(snap.handle, 0u);
  EXPECT_TRUE(snap.extra.contains("globals"));
  EXPECT_GT(snap.pages, 32u);  // grew by the 2 MiB allocation
  a->close();
  EXPECT_TRUE(a->invalid());
  EXPECT_FALSE(a->can_snapshot());

  ManualClock other_clock;
  Workspace fresh(other_clock);
  auto b = restore(fresh, snap);
  EXPECT_EQ(text_of(b->execute(req("get name"))), "kept across restore");
  // after_restore ran once as the image's warm-up, once on the boot (a copy of the image) and
  // once on this restore.
  EXPECT_EQ(text_of(b->execute(req("restores"))), "3");
  // It keeps working: new state, another snapshot, another restore.
  ASSERT_FALSE(b->execute(req("set second yes")).error);
  const StoredSnapshot snap2 = StoredSnapshot::of(*b);
  auto c = restore(fresh, snap2);
  EXPECT_EQ(text_of(c->execute(req("get second"))), "yes");
  EXPECT_EQ(text_of(c->execute(req("get name"))), "kept across restore");
  EXPECT_EQ(text_of(c->execute(req("restores"))), "4");
}

TEST_F(EmbeddedSessions, RestoreRejectsBadPagesAndGlobals) {
  auto a = boot(ws_);
  StoredSnapshot snap = StoredSnapshot::of(*a);
  StoredSnapshot short_page = snap;
  short_page.data.begin()->second.resize(100);
  EXPECT_THROW(restore(ws_, short_page), std::runtime_error);
  StoredSnapshot bad_globals = snap;
  bad_globals.extra["globals"] = "***";
  EXPECT_THROW(restore(ws_, bad_globals), std::runtime_error);
  StoredSnapshot too_big = snap;
  too_big.pages = 1000;  // beyond the 32 MiB cap
  EXPECT_ANY_THROW(restore(ws_, too_big));
  EXPECT_THROW(engine_.sessions->boot(SessionOptions{}), std::invalid_argument);
}

TEST_F(EmbeddedSessions, FuelIsPerExecutionAndExhaustionInvalidates) {
  auto s = boot(ws_);
  ASSERT_FALSE(s->execute(req("set a 1")).error);
  const SessionOutcome first = s->execute(req("get a"));
  const SessionOutcome second = s->execute(req("get a"));
  ASSERT_TRUE(first.usage && second.usage);
  // Reset for each call: the second call's count does not include the first's.
  EXPECT_GT(first.usage->fuel_consumed, 0u);
  EXPECT_LT(second.usage->fuel_consumed, first.usage->fuel_consumed * 3 / 2);
  EXPECT_EQ(first.usage->fuel_limit, kProbeFuel);

  const SessionOutcome spun = s->execute(req("eprint starting\nspin"));
  ASSERT_TRUE(spun.error);
  EXPECT_EQ(spun.error->name, "ExecutionLimitError");
  EXPECT_EQ(spun.error->message, "Execution fuel exhausted");
  EXPECT_EQ(spun.logs.stderr_lines, std::vector<std::string>{"starting"});
  ASSERT_TRUE(spun.usage);
  EXPECT_EQ(spun.usage->fuel_consumed, kProbeFuel);
  EXPECT_TRUE(spun.results.empty());
  EXPECT_TRUE(s->invalid());
  EXPECT_FALSE(s->can_snapshot());
  EXPECT_THROW(s->execute(req("get a")), std::logic_error);
}

TEST_F(EmbeddedSessions, LogsArePerExecution) {
  auto s = boot(ws_);
  EXPECT_EQ(s->execute(req("print one")).logs.stdout_lines, std::vector<std::string>{"one"});
  EXPECT_EQ(s->execute(req("print two")).logs.stdout_lines, std::vector<std::string>{"two"});
  EXPECT_TRUE(s->execute(req("text quiet")).logs.stdout_lines.empty());
}

TEST_F(EmbeddedSessions, GuestErrorsKeepTheSession) {
  auto s = boot(ws_);
  ASSERT_FALSE(s->execute(req("set x 1")).error);
  const SessionOutcome o = s->execute(req("fail ValueError nope"));
  ASSERT_TRUE(o.error);
  EXPECT_EQ(o.error->name, "ValueError");
  EXPECT_FALSE(s->invalid());
  EXPECT_TRUE(s->can_snapshot());
  EXPECT_EQ(text_of(s->execute(req("get x"))), "1");
}

TEST_F(EmbeddedSessions, AnOpenFileBlocksSnapshots) {
  ws_.write("/workspace/data.txt", "x");
  auto s = boot(ws_);
  ASSERT_FALSE(s->execute(req("open /workspace/data.txt")).error);
  EXPECT_FALSE(s->can_snapshot());
  EXPECT_FALSE(s->invalid());
  EXPECT_THROW(s->snapshot(), std::logic_error);
  ASSERT_FALSE(s->execute(req("closeall")).error);
  EXPECT_TRUE(s->can_snapshot());
}

TEST_F(EmbeddedSessions, HostSideStopsInvalidateWithTheirErrors) {
  struct Case {
    std::string code;
    std::string name;
    std::string message;
  };
  std::string flood;
  for (int i = 0; i < 40; ++i) flood += "print " + std::string(1000, 'y') + "\n";
  const std::vector<Case> cases = {
      {flood, "ExecutionLimitError", "Output limit exceeded"},
      {"big 70000", "ExecutionLimitError", "Result limit exceeded"},
      {"status 2 broken inside", "EngineError", "broken inside"},
      {"exit 4", "EngineError", "exit with exit code 4"},
      {"reply {", "EngineError", ""},
      {"trap", "EngineError", ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.code.substr(0, 20));
    auto s = boot(ws_);
    ASSERT_FALSE(s->execute(req("set x 1")).error);
    const SessionOutcome o = s->execute(req(c.code));
    ASSERT_TRUE(o.error);
    EXPECT_EQ(o.error->name, c.name);
    if (!c.message.empty()) {
      EXPECT_EQ(o.error->message, c.message);
    }
    EXPECT_FALSE(o.error->message.empty());
    EXPECT_TRUE(o.error->traceback.empty());
    EXPECT_TRUE(o.results.empty());
    EXPECT_TRUE(o.usage.has_value());
    EXPECT_EQ(o.cwd, "/workspace");
    EXPECT_TRUE(s->invalid());
    EXPECT_FALSE(s->can_snapshot());
  }
}

TEST_F(EmbeddedSessions, TheDeadlineInvalidates) {
  EmbeddedLanguage lang = probe_language();
  lang.limits.fuel = 0;
  lang.call_timeout = std::chrono::milliseconds(100);
  engine_ = probe_engine(lang);
  auto s = boot(ws_);
  const SessionOutcome o = s->execute(req("spin"));
  ASSERT_TRUE(o.error);
  EXPECT_EQ(o.error->name, "ExecutionLimitError");
  EXPECT_EQ(o.error->message, "Execution time limit exceeded");
  EXPECT_TRUE(s->invalid());
}

TEST_F(EmbeddedSessions, TheCwdFollowsTheGuest) {
  ws_.mkdir("/workspace/sub", false);
  ws_.mkdir("/workspace/sub/deeper", false);
  auto s = boot(ws_);
  EXPECT_EQ(s->execute(req("cd /workspace/sub")).cwd, "/workspace/sub");
  EXPECT_EQ(s->cwd(), "/workspace/sub");
  EXPECT_EQ(cwd_changes_, std::vector<std::string>{"/workspace/sub"});
  // The next request carries the cwd: a relative cd starts there.
  EXPECT_EQ(s->execute(req("cd deeper")).cwd, "/workspace/sub/deeper");
  EXPECT_EQ(s->execute(req("reportcwd ..")).cwd, "/workspace/sub");
  // Anything that is not a workspace directory resets to /workspace.
  EXPECT_EQ(s->execute(req("reportcwd /etc")).cwd, "/workspace");
  EXPECT_EQ(s->execute(req("reportcwd /workspace/missing")).cwd, "/workspace");
  ws_.write("/workspace/file", "x");
  EXPECT_EQ(s->execute(req("reportcwd /workspace/file")).cwd, "/workspace");
  // A restored session starts from the stored cwd.
  const StoredSnapshot snap = StoredSnapshot::of(*s);
  auto r = restore(ws_, snap, "/workspace/sub");
  EXPECT_EQ(r->cwd(), "/workspace/sub");
  EXPECT_EQ(r->execute(req("text hi")).cwd, "/workspace/sub");
}

TEST_F(EmbeddedSessions, GuestWritesAndTheDisabledFlag) {
  ws_.write("/workspace/data.txt", "x");
  auto s = boot(ws_);
  EXPECT_FALSE(s->execute(req("open /workspace/data.txt\ncloseall")).error);
  ws_.set_disabled(true);
  const SessionOutcome o = s->execute(req("open /workspace/data.txt"));
  ASSERT_TRUE(o.error);
  EXPECT_EQ(o.error->name, "OSError");
  EXPECT_EQ(o.error->message, "Permission denied");
  EXPECT_FALSE(s->invalid());
}

TEST_F(EmbeddedSessions, EnvVarsArePerExecution) {
  auto s = boot(ws_);
  EXPECT_EQ(text_of(s->execute(req("env MODE", {{"MODE", "first"}}))), "first");
  EXPECT_EQ(text_of(s->execute(req("env MODE"))), "<unset>");
}

TEST_F(EmbeddedSessions, AfterInitRunsOnBootButNotOnRestore) {
  EmbeddedLanguage lang = probe_language();
  int inits = 0;
  lang.after_init = [&inits](EmbeddedGuest& guest) {
    ++inits;
    guest.eval("set booted yes");
  };
  engine_ = probe_engine(lang);
  auto s = boot(ws_);
  EXPECT_EQ(inits, 1);
  EXPECT_EQ(text_of(s->execute(req("get booted"))), "yes");
  auto r = restore(ws_, StoredSnapshot::of(*s));
  EXPECT_EQ(inits, 1);
  EXPECT_EQ(text_of(r->execute(req("get booted"))), "yes");
}

}  // namespace
}  // namespace sandbox

// The kv test engine driven through the Engine interface: stateless runs, sessions, snapshot and
// restore, fuel, memory, output, descriptors and the workspace. The conformance suite, the program
// corpus (corpus.json) and the checks of checks.json run in tests/engines/suite.
#include "kv_engine.h"

#include <map>
#include <span>

#include <gtest/gtest.h>

#include <sandbox/testing.h>

namespace sandbox {
namespace {

using engines::kKvFuel;
using engines::make_kv_engine;

ExecutionRequest req(std::string code, std::map<std::string, std::string> env = {}) {
  return ExecutionRequest{std::move(code), std::move(env)};
}

std::string text_of(const EngineOutcome& o) {
  if (o.results.size() != 1 || !o.results[0].text) return "<no text result>";
  return *o.results[0].text;
}

std::string flood_code() {
  std::string code;
  for (int i = 0; i < 50; ++i) code += "print " + std::string(1000, 'z') + "\n";
  return code;
}

// The pages of a snapshot, as a server would store them (all-zero pages omitted).
struct Stored {
  std::uint32_t pages = 0;
  boost::json::object extra;
  std::map<std::uint32_t, std::vector<std::uint8_t>> data;

  explicit Stored(SessionInstance& s) {
    const SessionSnapshot snap = s.snapshot();
    extra = snap.extra;
    pages = static_cast<std::uint32_t>(snap.memory.size() / kWasmPageBytes);
    for (std::uint32_t p = 0; p < pages; ++p) {
      const auto page = snap.memory.subspan(std::size_t{p} * kWasmPageBytes, kWasmPageBytes);
      for (std::uint8_t b : page) {
        if (b != 0) {
          data.emplace(p, std::vector<std::uint8_t>(page.begin(), page.end()));
          break;
        }
      }
    }
  }
  SnapshotSource source() const {
    return {.handle = 0,
            .extra = extra,
            .memory_pages = pages,
            .read_page = [this](std::uint32_t p) -> std::optional<std::span<const std::uint8_t>> {
              const auto it = data.find(p);
              if (it == data.end()) return std::nullopt;
              return std::span<const std::uint8_t>(it->second);
            }};
  }
};

TEST(KvEngine, Identity) {
  const Engine e = make_kv_engine();
  EXPECT_EQ(e.language, "kv");
  EXPECT_EQ(e.engine_name, "kv 1.0 / sandbox-workers");
  EXPECT_EQ(e.build.size(), 64u);
  EXPECT_EQ(e.limits.fuel, kKvFuel);
  EXPECT_EQ(e.limits.memory_bytes, engines::kKvMemoryBytes);
  EXPECT_TRUE(e.sessions);
}

TEST(KvEngine, RunsTheLanguage) {
  const Engine e = make_kv_engine();
  const EngineOutcome o = e.run(req("# a comment\nset a 41\nincr a\nprint hello\n\nprint world"));
  EXPECT_FALSE(o.error);
  EXPECT_EQ(text_of(o), "42");
  EXPECT_EQ(o.logs.stdout_lines, (std::vector<std::string>{"hello", "world"}));
  EXPECT_EQ(text_of(e.run(req("set s some words here\nget s"))), "some words here");
  ASSERT_TRUE(o.usage);
  EXPECT_GT(o.usage->fuel_consumed, 0u);
  EXPECT_EQ(o.usage->fuel_limit, kKvFuel);
}

TEST(KvEngine, GuestErrors) {
  const Engine e = make_kv_engine();
  const EngineOutcome failed = e.run(req("print first\nfail broken on purpose\nprint never"));
  ASSERT_TRUE(failed.error);
  EXPECT_EQ(failed.error->name, "KvError");
  EXPECT_EQ(failed.error->message, "broken on purpose");
  EXPECT_EQ(failed.error->traceback, std::vector<std::string>{"line 2: fail broken on purpose"});
  EXPECT_EQ(failed.logs.stdout_lines, std::vector<std::string>{"first"});
  EXPECT_EQ(e.run(req("get missing")).error->name, "KeyError");
  EXPECT_EQ(e.run(req("set x abc\nincr x")).error->name, "ValueError");
  EXPECT_EQ(e.run(req("frobnicate")).error->message, "unknown command: frobnicate");
  const EngineOutcome oom = e.run(req("alloc 100"));
  ASSERT_TRUE(oom.error);
  EXPECT_EQ(oom.error->name, "MemoryError");
  EXPECT_EQ(oom.error->message, "out of memory");
  // Files outside the preopens or above them cannot be read.
  for (const char* path : {"/etc/passwd", "../../etc/passwd", "/stdlib/../../etc/passwd"}) {
    const EngineOutcome o = e.run(req(std::string("read ") + path));
    ASSERT_TRUE(o.error) << path;
    EXPECT_EQ(o.error->name, "OSError") << path;
  }
}

TEST(KvEngine, LimitsStopRuns) {
  const Engine e = make_kv_engine();
  EXPECT_THROW(
      {
        try {
          static_cast<void>(e.run(req("spin")));
        } catch (const ExecutionLimitError& ex) {
          EXPECT_STREQ(ex.what(), "Execution fuel exhausted");
          throw;
        }
      },
      ExecutionLimitError);
  EXPECT_THROW(
      {
        try {
          static_cast<void>(e.run(req(flood_code())));
        } catch (const ExecutionLimitError& ex) {
          EXPECT_STREQ(ex.what(), "Output limit exceeded");
          throw;
        }
      },
      ExecutionLimitError);
  EXPECT_EQ(text_of(e.run(req("incr n"))), "1");  // the engine is fine afterwards
}

class KvSessions : public ::testing::Test {
 protected:
  std::unique_ptr<SessionInstance> boot() { return engine_.sessions->boot({.workspace = &ws_}); }
  ManualClock clock_{1'700'000'000'000};
  Workspace ws_{clock_};
  Engine engine_ = make_kv_engine();
};

TEST_F(KvSessions, SnapshotThenRestoreIntoAFreshInstanceKeepsState) {
  auto a = boot();
  EXPECT_EQ(text_of(a->execute(req("incr visits"))), "1");
  EXPECT_EQ(text_of(a->execute(req("incr visits\nset who kv"))), "2");
  ASSERT_TRUE(a->can_snapshot());
  const Stored stored(*a);
  a->close();

  ManualClock clock2;
  Workspace other(clock2);
  auto b = engine_.sessions->restore({.workspace = &other}, stored.source());
  EXPECT_EQ(text_of(b->execute(req("incr visits"))), "3");
  EXPECT_EQ(text_of(b->execute(req("get who"))), "kv");
  EXPECT_TRUE(b->can_snapshot());
}

TEST_F(KvSessions, FuelExhaustionInvalidatesTheSession) {
  auto s = boot();
  ASSERT_FALSE(s->execute(req("set a 1")).error);
  const SessionOutcome o = s->execute(req("spin"));
  ASSERT_TRUE(o.error);
  EXPECT_EQ(o.error->name, "ExecutionLimitError");
  EXPECT_EQ(o.error->message, "Execution fuel exhausted");
  ASSERT_TRUE(o.usage);
  EXPECT_EQ(o.usage->fuel_consumed, kKvFuel);
  EXPECT_TRUE(s->invalid());
  EXPECT_FALSE(s->can_snapshot());
}

TEST_F(KvSessions, AnOutputFloodInvalidatesTheSession) {
  auto s = boot();
  const SessionOutcome o = s->execute(req(flood_code()));
  ASSERT_TRUE(o.error);
  EXPECT_EQ(o.error->name, "ExecutionLimitError");
  EXPECT_EQ(o.error->message, "Output limit exceeded");
  EXPECT_FALSE(o.logs.stdout_lines.empty());  // what fit before the limit
  EXPECT_TRUE(s->invalid());
}

TEST_F(KvSessions, AnOpenFileBlocksSnapshotsUntilClosed) {
  ws_.write("/workspace/data.txt", "d");
  auto s = boot();
  ASSERT_FALSE(s->execute(req("open /workspace/data.txt")).error);
  EXPECT_FALSE(s->can_snapshot());
  EXPECT_FALSE(s->invalid());
  ASSERT_FALSE(s->execute(req("close")).error);
  EXPECT_TRUE(s->can_snapshot());
}

TEST_F(KvSessions, ReadsAndWritesTheWorkspace) {
  auto s = boot();
  ASSERT_FALSE(s->execute(req("write /workspace/notes.txt hello from kv")).error);
  EXPECT_EQ(ws_.read("/workspace/notes.txt").content, "hello from kv");
  EXPECT_EQ(ws_.stat("/workspace/notes.txt").updated_at, 1'700'000'000'000);
  ws_.write("/workspace/from-host.txt", "host data");
  EXPECT_EQ(text_of(s->execute(req("read /workspace/from-host.txt"))), "host data");
  EXPECT_EQ(text_of(s->execute(req("read from-host.txt"))), "host data");  // relative to cwd
  const SessionOutcome missing = s->execute(req("read /workspace/nope.txt"));
  ASSERT_TRUE(missing.error);
  EXPECT_EQ(missing.error->message, "/workspace/nope.txt: No such file or directory");
}

TEST_F(KvSessions, ADisabledWorkspaceAnswersPermissionDenied) {
  ws_.write("/workspace/data.txt", "d");
  auto s = boot();
  ws_.set_disabled(true);
  for (const char* code :
       {"read /workspace/data.txt", "write /workspace/x.txt no", "open /workspace/data.txt"}) {
    const SessionOutcome o = s->execute(req(code));
    ASSERT_TRUE(o.error) << code;
    EXPECT_EQ(o.error->name, "OSError");
    EXPECT_NE(o.error->message.find("Permission denied"), std::string::npos) << o.error->message;
  }
  EXPECT_FALSE(s->invalid());
  ws_.set_disabled(false);
  EXPECT_EQ(text_of(s->execute(req("read /workspace/data.txt"))), "d");
}

TEST_F(KvSessions, MemoryGrowsAndSurvivesRestore) {
  auto s = boot();
  const SessionOutcome small = s->execute(req("set x 1"));
  ASSERT_FALSE(s->execute(req("alloc 8")).error);
  const SessionOutcome after = s->execute(req("get x"));
  ASSERT_TRUE(small.usage && after.usage);
  EXPECT_GE(after.usage->memory_bytes, small.usage->memory_bytes + (8u << 20));
  const Stored stored(*s);
  auto r = engine_.sessions->restore({.workspace = &ws_}, stored.source());
  const SessionOutcome restored = r->execute(req("get x"));
  EXPECT_EQ(text_of(restored), "1");
  EXPECT_EQ(restored.usage->memory_bytes, after.usage->memory_bytes);
  // The cap still holds after a restore.
  EXPECT_EQ(r->execute(req("alloc 100")).error->name, "MemoryError");
}

}  // namespace
}  // namespace sandbox

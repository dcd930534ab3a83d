// The wkv test engine (engines/wkv), a wasmify-shaped guest behind the kit's wasmify driver
// (docs/wasmify-abi.md), driven through the Engine interface: stateless runs, output, errors,
// limits, sessions with the interpreter handle through snapshot and restore. The conformance
// suite, the program corpus (corpus.json) and the checks of checks.json (the post-initialisation
// image, a context across a restart) run in tests/engines/suite.
#include "wkv_engine.h"

#include <map>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <sandbox/testing.h>

#include "engines/corpus/session_snapshot.h"
#include "support/isolation_under_test.h"

namespace sandbox {
namespace {

using engines::make_wkv_engine;

ExecutionRequest req(std::string code, std::map<std::string, std::string> env = {}) {
  return ExecutionRequest{std::move(code), std::move(env)};
}

std::string text_of(const EngineOutcome& o) {
  if (o.results.size() != 1 || !o.results[0].text) return "<no text result>";
  return o.results[0].text.value_or("");
}

// The outcome's error; an empty one (name "") when there is none, which the expectations on its
// name then report.
ExecutionError error_of(const EngineOutcome& o) { return o.error.value_or(ExecutionError{}); }

// Over the output limit (32 KiB): 40 lines of 1,000 bytes in one answer.
std::string flood_code() {
  std::string code;
  for (int i = 0; i < 40; ++i) code += "print " + std::string(1000, 'z') + "\n";
  return code;
}

// The message of the ExecutionLimitError `f` throws ("" when it throws none).
template <class F>
std::string limit_message(F f) {
  try {
    f();
  } catch (const ExecutionLimitError& e) {
    return e.what();
  }
  return "";
}

TEST(WkvEngine, Identity) {
  const Engine e = make_wkv_engine();
  EXPECT_EQ(e.language, "wkv");
  EXPECT_EQ(e.engine_name, "wkv 1.0 / wasmify");
  EXPECT_EQ(e.limits.fuel, engines::kWkvFuel);
  EXPECT_TRUE(e.sessions.has_value());
  EXPECT_EQ(e.build.size(), 64u);  // sha256 of the module and the driver
}

TEST(WkvEngine, RunsTheLanguage) {
  const Engine e = test::under_test(make_wkv_engine());
  const EngineOutcome o = e.run(req("set a 41\nincr a\nprint out\nwarn err\necho direct"));
  EXPECT_FALSE(o.error);
  EXPECT_EQ(text_of(o), "42");
  // `echo` wrote through WASI during the call; `print` came back in the answer and was
  // captured after it.
  EXPECT_EQ(o.logs.stdout_lines, (std::vector<std::string>{"direct", "out"}));
  EXPECT_EQ(o.logs.stderr_lines, std::vector<std::string>{"err"});
  // The request's environment reaches the guest.
  EXPECT_EQ(text_of(e.run(req("env GREETING", {{"GREETING", "hi there"}}))), "hi there");
  const EngineOutcome json = e.run(req("json {\"a\":[1,2]}"));
  ASSERT_EQ(json.results.size(), 1u);
  EXPECT_EQ(boost::json::serialize(json.results[0].json.value_or(nullptr)), R"({"a":[1,2]})");
}

TEST(WkvEngine, StatelessRunsStartFromTheImage) {
  const Engine e = make_wkv_engine();
  EXPECT_EQ(text_of(e.run(req("incr n"))), "1");
  EXPECT_EQ(text_of(e.run(req("incr n"))), "1");
}

TEST(WkvEngine, GuestErrors) {
  const Engine e = test::under_test(make_wkv_engine());
  const EngineOutcome o = e.run(req("print before\nfail ValueError bad value\nprint after"));
  ASSERT_TRUE(o.error);
  EXPECT_EQ(error_of(o).name, "ValueError");
  EXPECT_EQ(error_of(o).message, "bad value");
  EXPECT_EQ(o.logs.stdout_lines, std::vector<std::string>{"before"});
  EXPECT_TRUE(o.results.empty());
  const EngineOutcome unknown = e.run(req("frobnicate"));
  ASSERT_TRUE(unknown.error);
  EXPECT_EQ(error_of(unknown).name, "SyntaxError");
}

TEST(WkvEngine, LimitsStopRuns) {
  const Engine e = make_wkv_engine();
  EXPECT_EQ(limit_message([&] { (void)e.run(req("spin")); }), "Execution fuel exhausted");
  EXPECT_EQ(limit_message([&] { (void)e.run(req(flood_code())); }), "Output limit exceeded");
  // A 70,000-byte value fits the 128 KiB response but not the 64 KiB of results.
  EXPECT_EQ(limit_message([&] { (void)e.run(req("big 70000")); }), "Result limit exceeded");
  // A 140,000-byte value does not fit the response.
  EXPECT_EQ(limit_message([&] { (void)e.run(req("big 140000")); }),
            "Interpreter response limit exceeded");
  // A memory.grow past the cap fails inside the guest, which reports its own error.
  const EngineOutcome oom = e.run(req("alloc 100"));
  ASSERT_TRUE(oom.error);
  EXPECT_EQ(error_of(oom).name, "MemoryError");
  EXPECT_EQ(text_of(e.run(req("incr n"))), "1");  // the engine is fine afterwards
}

class WkvSessions : public ::testing::Test {
 protected:
  Engine engine_ = make_wkv_engine();
  testing_corpus::SnapshotFixture f_{engine_};
};

TEST_F(WkvSessions, TheHandleTravelsWithTheSnapshotAndRestoreDoesNotInitialise) {
  f_.expect_text(*f_.session, "set who wkv\nincr visits", "1");
  const SessionSnapshot snap = f_.session->snapshot();
  EXPECT_NE(snap.handle, 0u);  // the interpreter's handle, not our ABI's 0
  auto restored = f_.restore();
  // Had restore run the init method again, a new interpreter would have no globals.
  f_.expect_text(*restored, "incr visits", "2");
  f_.expect_text(*restored, "get who", "wkv");
  EXPECT_EQ(restored->snapshot().handle, snap.handle);
  // A snapshot of the restored session restores too.
  auto again = f_.restore_from(*restored);
  f_.expect_text(*again, "incr visits", "3");
}

TEST_F(WkvSessions, ARestoredCopyIsReseeded) {
  auto a = f_.restore();
  auto b = f_.restore();
  // The after-copy script seeds each copy from random_get: two copies of one snapshot do not
  // replay the same numbers.
  EXPECT_NE(f_.text(*a, "random") + f_.text(*a, "random"),
            f_.text(*b, "random") + f_.text(*b, "random"));
}

TEST_F(WkvSessions, AnyFailureInvalidatesTheSession) {
  for (const std::string& code : {std::string("spin"), std::string("big 140000"),
                                  std::string("big 70000"), flood_code(), std::string("exit 3")}) {
    auto s = f_.restore();
    f_.expect_text(*s, "set a 1", "");
    const SessionOutcome o = s->execute(req(code));
    ASSERT_TRUE(o.error) << code.substr(0, 20);
    EXPECT_TRUE(error_of(o).name == "ExecutionLimitError" || error_of(o).name == "EngineError")
        << error_of(o).name;
    EXPECT_TRUE(s->invalid()) << code.substr(0, 20);
    EXPECT_FALSE(s->can_snapshot());
  }
  // A guest error is not a failure of the call: the session stays valid.
  auto s = f_.restore();
  const SessionOutcome o = s->execute(req("fail KeyError gone"));
  ASSERT_TRUE(o.error);
  EXPECT_EQ(error_of(o).name, "KeyError");
  EXPECT_FALSE(s->invalid());
}

TEST_F(WkvSessions, ResponseLimitIsAnExecutionLimit) {
  const SessionOutcome o = f_.session->execute(req("big 140000"));
  ASSERT_TRUE(o.error);
  EXPECT_EQ(error_of(o).name, "ExecutionLimitError");
  EXPECT_EQ(error_of(o).message, "Interpreter response limit exceeded");
}

TEST_F(WkvSessions, AnOpenFileBlocksSnapshotsUntilClosed) {
  f_.expect_text(*f_.session, "open /dev/null", "");
  EXPECT_FALSE(f_.session->can_snapshot());
  f_.expect_text(*f_.session, "close", "");
  EXPECT_TRUE(f_.session->can_snapshot());
}

TEST_F(WkvSessions, WorkspaceAndCwd) {
  f_.workspace().mkdir("/workspace/sub", false);
  f_.expect_text(*f_.session, "write /workspace/sub/a.txt hello\ncd sub", "");
  EXPECT_EQ(f_.session->cwd(), "/workspace/sub");
  f_.expect_text(*f_.session, "read a.txt", "hello");
  // A cwd outside the workspace resets it to the root.
  f_.expect_text(*f_.session, "cd /stdlib", "");
  EXPECT_EQ(f_.session->cwd(), "/workspace");
}

}  // namespace
}  // namespace sandbox

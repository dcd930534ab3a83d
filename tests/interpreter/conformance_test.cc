// The conformance suite's session steps against the fake session engine, and proof that the
// suite fails engines that break the rules.
#include <gtest/gtest.h>

#include <sandbox/testing.h>

#include "support/fake_session_engine.h"

namespace sandbox {
namespace {

testing::ConformanceOptions fake_programs() {
  return {.programs = {.simple = {.code = "incr", .expect_result_text = "1"},
                       .error = {.code = "fail"},
                       .stateful = testing::StatefulProgram{
                           .define = "incr", .use = "get", .expect_result_text = "1"}}};
}

TEST(SessionConformance, TheFakeSessionEnginePasses) {
  test::FakeEngineStats stats;
  const Engine engine = test::make_fake_session_engine(stats);
  testing::run_engine_conformance(engine, fake_programs());
  EXPECT_GE(stats.restores.load(), 1);  // step 9 really restored
}

TEST(SessionConformance, AnEngineThatLosesStateOnRestoreFailsStep9) {
  test::FakeEngineStats stats;
  Engine engine = test::make_fake_session_engine(stats);
  auto boot = engine.sessions->boot;
  engine.sessions->restore = [boot](const SessionOptions& o, const SnapshotSource&) {
    return boot(o);  // ignores the snapshot
  };
  try {
    testing::run_engine_conformance(engine, fake_programs());
    FAIL() << "an engine that forgets its state must not conform";
  } catch (const testing::ConformanceFailure& f) {
    EXPECT_EQ(f.step(), 9) << f.what();
  }
}

TEST(SessionConformance, SessionsNeedAStatefulProgram) {
  test::FakeEngineStats stats;
  const Engine engine = test::make_fake_session_engine(stats);
  auto options = fake_programs();
  options.programs.stateful.reset();
  try {
    testing::run_engine_conformance(engine, options);
    FAIL();
  } catch (const testing::ConformanceFailure& f) {
    EXPECT_EQ(f.step(), 5);
  }
}

}  // namespace
}  // namespace sandbox

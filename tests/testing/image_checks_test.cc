// The image checks of sandbox::testing against a toy engine: it passes them when each run
// really starts from its "image", and each check fails (naming what it saw) when the engine
// breaks the rule that check guards.
#include <atomic>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <sandbox/testing.h>

#include "support/fake_session_engine.h"

namespace sandbox {
namespace {

// A toy language over one integer variable: `set N` (the result is N), `double N` (sets N and
// yields 2N), `get` (the variable, "none" when unset), `grow` (memory grows), `trap` (sets the
// variable, then run() throws). What each broken engine does wrong is a flag.
struct ToyFlaws {
  bool leaks_state = false;         // runs share the variable
  bool leaks_after_a_trap = false;  // a trapped run's variable stays
  bool keeps_grown_memory = false;  // memory stays grown
  std::uint64_t fuel_per_run = 10;
};

class ToyEngine {
 public:
  explicit ToyEngine(ToyFlaws flaws) : flaws_(flaws) {}

  Engine engine() {
    return Engine{.language = "toy",
                  .engine_name = "toy 1",
                  .build = "toy-1",
                  .limits = {.fuel = 100'000,
                             .memory_bytes = 1 << 20,
                             .code_bytes = 1024,
                             .request_bytes = 2048},
                  .run = [this](const ExecutionRequest& r) { return run(r); },
                  .sessions = std::nullopt};
  }

 private:
  EngineOutcome run(const ExecutionRequest& r) {
    const std::lock_guard lock(mutex_);
    std::optional<long> variable = flaws_.leaks_state ? shared_ : std::nullopt;
    if (flaws_.leaks_after_a_trap && trapped_) variable = trapped_;
    std::uint64_t memory = flaws_.keeps_grown_memory ? memory_ : kImageMemory;
    EngineOutcome o;
    const auto reply = [&](std::string text) {
      o.results.push_back(ResultEntry::of_text(std::move(text)));
    };
    if (r.code.starts_with("set ")) {
      variable = std::stol(r.code.substr(4));
      reply(std::to_string(*variable));
    } else if (r.code.starts_with("double ")) {
      variable = std::stol(r.code.substr(7));
      reply(std::to_string(*variable * 2));
    } else if (r.code == "get") {
      reply(variable ? std::to_string(*variable) : "none");
    } else if (r.code == "grow") {
      memory = 4 * kImageMemory;
    } else if (r.code == "trap") {
      trapped_ = 7;
      throw ExecutionLimitError("Execution fuel exhausted");
    } else {
      o.error = ExecutionError{.name = "SyntaxError", .message = r.code, .traceback = {}};
    }
    shared_ = variable;
    memory_ = memory;
    o.usage =
        Usage{.fuel_consumed = flaws_.fuel_per_run, .fuel_limit = 100'000, .memory_bytes = memory};
    return o;
  }

  static constexpr std::uint64_t kImageMemory = 2 * kWasmPageBytes;
  ToyFlaws flaws_;
  std::mutex mutex_;
  std::optional<long> shared_;
  std::optional<long> trapped_;
  std::uint64_t memory_ = kImageMemory;
};

testing::ImageCheckPrograms toy_programs() {
  return {.leave_state = "set 5",
          .observe_state = "get",
          .fresh_state = "none",
          .failing = {"trap"},
          .observe_failed = "get",
          .fresh_failed = "none",
          .grow = "grow",
          .store_and_double = [](int n) { return "double " + std::to_string(n); },
          .small = "get"};
}

// The result of the check named `name` among `results`.
testing::CheckResult named(const std::vector<testing::CheckResult>& results,
                           const std::string& name) {
  for (const auto& r : results) {
    if (r.name == name) return r;
  }
  ADD_FAILURE() << "no check named " << name;
  return {};
}

std::string text_of(const testing::CheckResult& r) {
  std::ostringstream os;
  os << r;
  return os.str();
}

TEST(ImageChecks, AnEngineThatStartsEachRunFromItsImagePasses) {
  ToyEngine toy({});
  const auto results = testing::check_post_init_image(toy.engine(), toy_programs());
  ASSERT_EQ(results.size(), 5u);
  for (const auto& r : results) EXPECT_TRUE(r.passed()) << r;
  EXPECT_EQ(results.back().notes.size(), 1u);  // the fuel used
}

TEST(ImageChecks, StateLeftByARunIsCaught) {
  ToyEngine toy({.leaks_state = true});
  const auto r = named(testing::check_post_init_image(toy.engine(), toy_programs()),
                       "stateless runs do not share state");
  EXPECT_FALSE(r.passed());
  EXPECT_NE(text_of(r).find("`get` yields '5' after `set 5`, expected 'none'"), std::string::npos)
      << r;
}

TEST(ImageChecks, StateLeftByATrappedRunIsCaught) {
  ToyEngine toy({.leaks_after_a_trap = true});
  const auto results = testing::check_post_init_image(toy.engine(), toy_programs());
  EXPECT_TRUE(named(results, "stateless runs do not share state").passed());
  const auto r = named(results, "runs after a failed run start from the image");
  EXPECT_NE(text_of(r).find("`get` yields '7' after `trap`, expected 'none'"), std::string::npos)
      << r;
}

TEST(ImageChecks, AReusedGrownInstanceIsCaught) {
  ToyEngine toy({.keeps_grown_memory = true});
  const auto r = named(testing::check_post_init_image(toy.engine(), toy_programs()),
                       "a grown instance is not reused");
  EXPECT_EQ(r.failures.size(), static_cast<std::size_t>(testing::kRunsAfterGrowth)) << r;
}

TEST(ImageChecks, ARunThatDoesNotThrowIsNotAFailedRun) {
  ToyEngine toy({});
  const auto r = testing::check_runs_after_a_failed_run_start_from_the_image(
      toy.engine(), {"set 1"}, "get", "none");
  EXPECT_NE(text_of(r).find("`set 1` must make run() throw"), std::string::npos) << r;
}

TEST(ImageChecks, ExpensiveStartUpIsCaught) {
  ToyEngine toy({.fuel_per_run = 100});
  const auto r = testing::check_start_up_uses_little_of_the_fuel_budget(toy.engine(), "get");
  EXPECT_NE(text_of(r).find("used 100 fuel, not less than limits.fuel / 1000"), std::string::npos)
      << r;
}

TEST(ImageChecks, EmptyProgramsFailRatherThanSkip) {
  ToyEngine toy({});
  const auto results = testing::check_post_init_image(toy.engine(), {});
  ASSERT_EQ(results.size(), 5u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_FALSE(results[i].passed()) << results[i];
}

TEST(ImageChecks, AContextSurvivesARestartOfTheRuntime) {
  test::FakeEngineStats stats;
  const auto r = testing::check_a_context_survives_a_restart_of_the_runtime(
      [&stats] { return test::make_fake_session_engine(stats); }, "incr", "get", "1");
  EXPECT_TRUE(r.passed()) << r;
  EXPECT_GE(stats.restores.load(), 1);
}

TEST(ImageChecks, AContextLostInARestartIsCaught) {
  test::FakeEngineStats stats;
  const auto r = testing::check_a_context_survives_a_restart_of_the_runtime(
      [&stats] {
        Engine engine = test::make_fake_session_engine(stats);
        auto boot = engine.sessions->boot;
        engine.sessions->restore = [boot](const SessionOptions& o, const SnapshotSource&) {
          return boot(o);  // ignores the snapshot
        };
        return engine;
      },
      "incr", "get", "1");
  EXPECT_NE(text_of(r).find("`get` yields '0' after the restart, expected '1'"), std::string::npos)
      << r;
}

}  // namespace
}  // namespace sandbox

// Checks shared by the tests of engines whose stateless runs start from a post-initialisation
// image (the embedded host resets a reused instance to the image before each run), and a
// context's survival across a restart of the runtime. Each takes the language's own programs;
// the test files keep one TEST per behaviour and call these.
#pragma once

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>
#include <sandbox/engine.h>
#include <sandbox/runtime.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace sandbox::testing_corpus {

// The text result of a stateless run that must succeed ("" when it has no text result).
inline std::string run_text(const Engine& engine, const std::string& code) {
  const EngineOutcome o = engine.run({code, {}});
  EXPECT_FALSE(o.error) << code << ": " << o.error->name << ": " << o.error->message;
  if (o.results.empty() || !o.results[0].text) return "";
  return *o.results[0].text;
}

// `leave_state` (run with an env var set) defines globals, functions, env vars...; `observe`
// then answers `expected` in every later run: nothing one run leaves behind is visible to the
// next.
inline void expect_stateless_runs_do_not_share_state(const Engine& engine,
                                                     const std::string& leave_state,
                                                     const std::string& observe,
                                                     const std::string& expected) {
  for (int i = 0; i < 4; ++i) {
    const EngineOutcome set = engine.run({leave_state, {{"A", "1"}}});
    ASSERT_FALSE(set.error) << set.error->message;
    EXPECT_EQ(run_text(engine, observe), expected);
  }
}

// Each of `failing` sets something and then traps (fuel, output flood, exit...); `observe`
// answers `expected` afterwards: a trapped run leaves nothing behind either.
inline void expect_runs_after_a_failed_run_start_from_the_image(
    const Engine& engine, std::initializer_list<const char*> failing, const std::string& observe,
    const std::string& expected) {
  for (const char* code : failing) {
    EXPECT_THROW(engine.run({code, {}}), std::exception) << code;
    EXPECT_EQ(run_text(engine, observe), expected) << code;
  }
}

// `grow` makes the instance's memory grow; the runs after it start with the image's memory
// size again (a reset cannot shrink an instance, so a grown one is not reused).
inline void expect_a_grown_instance_is_not_reused(const Engine& engine, const std::string& grow) {
  const EngineOutcome base = engine.run({"1", {}});
  ASSERT_TRUE(base.usage);
  const EngineOutcome big = engine.run({grow, {}});
  ASSERT_TRUE(big.usage);
  ASSERT_FALSE(big.error) << big.error->message;
  EXPECT_GT(big.usage->memory_bytes, base.usage->memory_bytes);
  for (int i = 0; i < 3; ++i) {
    const EngineOutcome next = engine.run({"1", {}});
    ASSERT_TRUE(next.usage);
    EXPECT_EQ(next.usage->memory_bytes, base.usage->memory_bytes);
  }
}

// Four threads, five runs each, every run storing its own number n in a global and answering
// 2n (`store_and_double(n)` is the program): no run sees another's state or result.
inline void expect_concurrent_stateless_runs(
    const Engine& engine, const std::function<std::string(int)>& store_and_double) {
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &ok, &engine, &store_and_double] {
      for (int i = 0; i < 5; ++i) {
        const int n = t * 100 + i;
        const EngineOutcome o = engine.run({store_and_double(n), {}});
        if (!o.error && o.results.size() == 1 && o.results[0].text == std::to_string(2 * n)) ++ok;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 20);
}

// A stateless `1 + 1` pays nothing of the interpreter's start-up (that is the image's job).
inline void expect_start_up_uses_little_of_the_fuel_budget(const Engine& engine) {
  const EngineOutcome run = engine.run({"1 + 1", {}});
  ASSERT_TRUE(run.usage);
  std::cout << "fuel: stateless 1 + 1 " << run.usage->fuel_consumed << " of " << engine.limits.fuel
            << ", memory " << run.usage->memory_bytes << " bytes\n";
  EXPECT_LT(run.usage->fuel_consumed, engine.limits.fuel / 1000);
}

// Contexts live in SQLite: `define` runs in a context of one runtime, then a new runtime over
// the same directory runs `use` in that context and answers `expected` (its text result, or its
// JSON result serialized), as the context's execution 2.
inline void expect_a_context_survives_a_restart_of_the_runtime(
    const std::function<Engine()>& make_engine, const std::string& define, const std::string& use,
    const std::string& expected) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("engine-restart-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto execute = [](InterpreterRuntime& runtime, const std::string& code) {
    auto r = runtime.execute_in_context("key-1", {"ctx-1", code, {}, {}}, nullptr);
    EXPECT_TRUE(std::holds_alternative<InterpreterExecuteResponse>(r));
    return std::get<InterpreterExecuteResponse>(r);
  };
  {
    auto runtime =
        define_interpreter_runtime(make_engine(), RuntimeOptions{.data_dir = dir.string()});
    ASSERT_EQ(
        runtime->interpreter()->handle("key-1", "POST", "/contexts", R"({"id":"ctx-1"})").status,
        201);
    const auto r = execute(*runtime, define);
    ASSERT_FALSE(r.result.outcome.error) << r.result.outcome.error->message;
    ASSERT_TRUE(r.context.snapshot);
    std::cout << "first snapshot: " << r.context.snapshot->pages << " non-zero pages, "
              << r.context.snapshot->stored_bytes << " bytes stored\n";
  }
  auto runtime =
      define_interpreter_runtime(make_engine(), RuntimeOptions{.data_dir = dir.string()});
  const auto r = execute(*runtime, use);
  ASSERT_FALSE(r.result.outcome.error) << r.result.outcome.error->message;
  ASSERT_EQ(r.result.outcome.results.size(), 1u);
  const auto& result = r.result.outcome.results[0];
  EXPECT_EQ(result.text ? *result.text : boost::json::serialize(*result.json), expected);
  EXPECT_EQ(r.execution_count, 2u);
  runtime.reset();
  std::filesystem::remove_all(dir);
}

}  // namespace sandbox::testing_corpus

// GoogleTest glue for the post-initialisation image checks of the kit's test library
// (<sandbox/testing/image_checks.h>, where each check is documented): the engines' tests keep
// one TEST per behaviour and call these, which fail the test with the check's failures.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <sandbox/engine.h>
#include <sandbox/testing.h>

#include "engines/corpus/corpus_runner.h"

namespace sandbox::testing_corpus {

// The text result of a stateless run that must succeed ("" when it has no text result).
inline std::string run_text(const Engine& engine, const std::string& code) {
  const EngineOutcome o = engine.run({code, {}});
  EXPECT_FALSE(o.error) << code << ": " << o.error->name << ": " << o.error->message;
  if (o.results.empty() || !o.results[0].text) return "";
  return *o.results[0].text;
}

inline void expect_stateless_runs_do_not_share_state(const Engine& engine,
                                                     const std::string& leave_state,
                                                     const std::string& observe,
                                                     const std::string& expected) {
  expect_passed(
      testing::check_stateless_runs_do_not_share_state(engine, leave_state, observe, expected));
}

inline void expect_runs_after_a_failed_run_start_from_the_image(
    const Engine& engine, std::initializer_list<const char*> failing, const std::string& observe,
    const std::string& expected) {
  expect_passed(testing::check_runs_after_a_failed_run_start_from_the_image(
      engine, std::vector<std::string>(failing.begin(), failing.end()), observe, expected));
}

inline void expect_a_grown_instance_is_not_reused(const Engine& engine, const std::string& grow) {
  expect_passed(testing::check_a_grown_instance_is_not_reused(engine, grow, "1"));
}

inline void expect_concurrent_stateless_runs(
    const Engine& engine, const std::function<std::string(int)>& store_and_double) {
  expect_passed(testing::check_concurrent_stateless_runs(engine, store_and_double));
}

inline void expect_start_up_uses_little_of_the_fuel_budget(const Engine& engine) {
  expect_passed(testing::check_start_up_uses_little_of_the_fuel_budget(engine, "1 + 1"));
}

inline void expect_a_context_survives_a_restart_of_the_runtime(
    const std::function<Engine()>& make_engine, const std::string& define, const std::string& use,
    const std::string& expected) {
  expect_passed(testing::check_a_context_survives_a_restart_of_the_runtime(make_engine, define, use,
                                                                           expected));
}

}  // namespace sandbox::testing_corpus

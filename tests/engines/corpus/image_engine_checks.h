// GoogleTest glue for the engines' own tests around the kit's test library
// (<sandbox/testing/image_checks.h>, where each check is documented): the checks every engine
// runs with its own programs are in tests/engines/suite (from tests/engines/<id>/checks.json);
// these helpers serve the checks particular to a language, and fail the test with the check's
// failures.
#pragma once

#include <functional>
#include <string>

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

inline void expect_a_context_survives_a_restart_of_the_runtime(
    const std::function<Engine()>& make_engine, const std::string& define, const std::string& use,
    const std::string& expected) {
  expect_passed(testing::check_a_context_survives_a_restart_of_the_runtime(make_engine, define, use,
                                                                           expected));
}

}  // namespace sandbox::testing_corpus

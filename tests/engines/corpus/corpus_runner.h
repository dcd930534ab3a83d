// GoogleTest glue for the kit's test library's CheckResults (<sandbox/testing/check_result.h>):
// the program corpus (<sandbox/testing/program_corpus.h>, where the corpus format is documented;
// tests/engines/suite runs each engine's tests/engines/<id>/corpus.json with it) and the image
// checks (image_engine_checks.h). The loading and the checks are the library's, the same a
// third-party engine runs.
#pragma once

#include <iostream>

#include <gtest/gtest.h>

#include <sandbox/testing.h>

namespace sandbox::testing_corpus {

// Fails the current test with each of the result's failures; prints its notes.
inline void expect_passed(const testing::CheckResult& result) {
  for (const auto& note : result.notes) std::cout << note << "\n";
  EXPECT_TRUE(result.passed()) << result;
}

}  // namespace sandbox::testing_corpus

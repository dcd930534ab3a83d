// The result of one check of the kit's test library (<sandbox/testing.h>): the program corpus
// (program_corpus.h) and the post-initialisation image checks (image_checks.h) return these
// instead of throwing, so that one run reports every violated expectation and any test
// framework can assert on them. With GoogleTest:
//
//   const sandbox::testing::CheckResult r = sandbox::testing::run_corpus_case(engine, c);
//   EXPECT_TRUE(r.passed()) << r;
//
// A value type; not synchronised (a check fills its own result, on the calling thread).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace sandbox::testing {

struct CheckResult {
  // What was checked: a corpus case's id ("print_run") or a check's name.
  std::string name;
  // Each violated expectation, in the order found; empty when the check passed. An exception
  // thrown while checking (by the engine, or by the kit) is one failure too, and ends the check.
  std::vector<std::string> failures;
  // Measurements worth printing (fuel used, snapshot sizes); never a failure.
  std::vector<std::string> notes;

  bool passed() const { return failures.empty(); }
};

// Prints the name, then each failure on its own line (nothing more when it passed).
std::ostream& operator<<(std::ostream& os, const CheckResult& result);

}  // namespace sandbox::testing

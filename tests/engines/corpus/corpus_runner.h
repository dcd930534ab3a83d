// GoogleTest glue for the program corpus of the kit's test library
// (<sandbox/testing/program_corpus.h>, where the corpus format is documented): each case of a
// language's corpus.json (tests/engines/<language>/corpus.json) is one test per mode, named
// <name>_<mode>. The loading and the checks are the library's, the same a third-party engine runs.
#pragma once

#include <iostream>
#include <string>

#include <gtest/gtest.h>

#include <sandbox/engine.h>
#include <sandbox/testing.h>

#include "support/isolation_under_test.h"

namespace sandbox::testing_corpus {

inline std::string test_name(const ::testing::TestParamInfo<testing::CorpusCase>& info) {
  return info.param.id();
}

// Fails the current test with each of the result's failures; prints its notes.
inline void expect_passed(const testing::CheckResult& result) {
  for (const auto& note : result.notes) std::cout << note << "\n";
  EXPECT_TRUE(result.passed()) << result;
}

}  // namespace sandbox::testing_corpus

// Declares the parameterized corpus test `Suite` over `engine_expr`, reading `corpus_path`.
#define SANDBOX_LANGUAGE_CORPUS(Suite, engine_expr, corpus_path)                                \
  class Suite : public ::testing::TestWithParam<::sandbox::testing::CorpusCase> {};             \
  TEST_P(Suite, Program) {                                                                      \
    static const ::sandbox::Engine engine = ::sandbox::test::under_test(engine_expr);           \
    ::sandbox::testing_corpus::expect_passed(                                                   \
        ::sandbox::testing::run_corpus_case(engine, GetParam()));                               \
  }                                                                                             \
  INSTANTIATE_TEST_SUITE_P(                                                                     \
      Corpus, Suite, ::testing::ValuesIn(::sandbox::testing::load_program_corpus(corpus_path)), \
      ::sandbox::testing_corpus::test_name)

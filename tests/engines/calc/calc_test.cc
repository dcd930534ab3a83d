#include <gtest/gtest.h>

#include <sandbox/testing.h>

#include "calc_engine.h"
#include "calc_eval.h"

namespace {

TEST(CalcLanguage, Precedence) {
  EXPECT_EQ(calc::evaluate("1 + 2 * 3", {}), 7);
  EXPECT_EQ(calc::evaluate("(1 + 2) * 3", {}), 9);
  EXPECT_EQ(calc::evaluate("2 ^ 3 ^ 2", {}), 512);  // right-associative
  EXPECT_EQ(calc::evaluate("-2 ^ 2", {}), -4);
  EXPECT_EQ(calc::evaluate("7 % 4", {}), 3);
  EXPECT_EQ(calc::evaluate("--3", {}), 3);
  EXPECT_EQ(calc::evaluate("10 / 4", {}), 2.5);
}

TEST(CalcLanguage, Variables) {
  EXPECT_EQ(calc::evaluate("x * y", {{"x", "6"}, {"y", "7"}}), 42);
  try {
    calc::evaluate("x + z", {{"x", "1"}});
    FAIL();
  } catch (const calc::CalcError& e) {
    EXPECT_EQ(e.name, "NameError");
    EXPECT_EQ(e.column, 5);
  }
  EXPECT_THROW(calc::evaluate("x", {{"x", "abc"}}), calc::CalcError);
}

TEST(CalcLanguage, Errors) {
  const auto name_of = [](const char* code) {
    try {
      calc::evaluate(code, {});
    } catch (const calc::CalcError& e) {
      return e.name;
    }
    return std::string("none");
  };
  EXPECT_EQ(name_of("1 / 0"), "ZeroDivisionError");
  EXPECT_EQ(name_of("1 % 0"), "ZeroDivisionError");
  EXPECT_EQ(name_of("(1"), "SyntaxError");
  EXPECT_EQ(name_of("1 2"), "SyntaxError");
  EXPECT_EQ(name_of(""), "SyntaxError");
  EXPECT_EQ(name_of("1..2"), "SyntaxError");
  EXPECT_EQ(name_of(std::string(100000, '(').c_str()), "SyntaxError");  // no stack overflow
}

TEST(CalcLanguage, FormatsNumbersLikeJavaScript) {
  EXPECT_EQ(calc::format_number(7), "7");
  EXPECT_EQ(calc::format_number(2.5), "2.5");
  EXPECT_EQ(calc::format_number(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(calc::format_number(-0.0), "0");
  EXPECT_EQ(calc::format_number(1.0 / 0.0), "Infinity");
}

// The call of docs/build-your-own-runtime.md#running-the-conformance-suite, verbatim (the kit's
// guide test checks that it compiles here); tests/engines/suite runs calc's own programs
// (engines/calc/conformance.json) like every engine's.
TEST(CalcConformance, PassesTheStatelessSuite) {
  const sandbox::Engine engine = sandbox::engines::make_calc_engine();
  sandbox::testing::run_engine_conformance(
      engine, {.programs = {.simple = {.code = "1 + 1", .expect_result_text = "2"},
                            .error = {.code = "1 / 0"}}});
}

TEST(CalcConformance, TheSuiteCatchesABrokenEngine) {
  auto engine = sandbox::engines::make_calc_engine();
  engine.run = [](const sandbox::ExecutionRequest&) -> sandbox::EngineOutcome {
    throw std::runtime_error("host bug");
  };
  try {
    sandbox::testing::run_engine_conformance(
        engine, {.programs = {.simple = {.code = "1 + 1", .expect_result_text = "2"},
                              .error = {.code = "1 / 0"},
                              .stateful = std::nullopt}});
    FAIL() << "a throwing engine must not conform";
  } catch (const sandbox::testing::ConformanceFailure& f) {
    EXPECT_EQ(f.step(), 1);
  }
  engine = sandbox::engines::make_calc_engine();
  try {
    sandbox::testing::run_engine_conformance(
        engine, {.programs = {.simple = {.code = "1 + 1", .expect_result_text = "3"},
                              .error = {.code = "1 / 0"},
                              .stateful = std::nullopt}});
    FAIL() << "a wrong result must not conform";
  } catch (const sandbox::testing::ConformanceFailure& f) {
    EXPECT_EQ(f.step(), 1);
    EXPECT_NE(std::string(f.what()).find("got '2'"), std::string::npos);
  }
}

}  // namespace

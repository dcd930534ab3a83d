// How `sandbox repl` groups typed lines into submissions.
#include "repl_input.h"

#include <gtest/gtest.h>

namespace sandbox::cli {
namespace {

TEST(OpenBrackets, CountsBracketsOutsideStrings) {
  EXPECT_EQ(open_brackets("f(1, [2, {3"), 3);
  EXPECT_EQ(open_brackets("f(1, [2, {3}])"), 0);
  EXPECT_EQ(open_brackets("print('(')"), 0);
  EXPECT_EQ(open_brackets("print(\"[\\\"\""), 1);
  EXPECT_EQ(open_brackets("x = ')' + ("), 1);
  EXPECT_EQ(open_brackets(")))"), 0);
  EXPECT_EQ(open_brackets("s = `multi\nline"), 1);
  EXPECT_EQ(open_brackets("s = `multi\nline`"), 0);
  EXPECT_EQ(open_brackets("s = \"\"\"doc\n("), 1);
  EXPECT_EQ(open_brackets("s = \"\"\"doc\n(\"\"\""), 0);
  EXPECT_EQ(open_brackets("s = 'unterminated\nf("), 1);  // a ' string ends at the newline
}

std::vector<std::string> submissions(const std::vector<std::string>& lines) {
  ReplInput input;
  std::vector<std::string> out;
  for (const auto& l : lines) {
    if (input.add_line(l)) out.push_back(input.take());
  }
  return out;
}

TEST(ReplInput, GroupsLinesIntoSubmissions) {
  EXPECT_EQ(submissions({"1 + 1", "x = 2"}), (std::vector<std::string>{"1 + 1", "x = 2"}));
  EXPECT_EQ(submissions({"f(1,", "2)", "g()"}), (std::vector<std::string>{"f(1,\n2)", "g()"}));
  EXPECT_EQ(submissions({"a = 1 \\", "  + 2"}), (std::vector<std::string>{"a = 1 \n  + 2"}));
  EXPECT_EQ(submissions({"def f(x):", "    return x", "", "f(2)"}),
            (std::vector<std::string>{"def f(x):\n    return x", "f(2)"}));
  EXPECT_EQ(submissions({"t = {", "", "}"}), (std::vector<std::string>{"t = {\n\n}"}));
  EXPECT_EQ(submissions({"x\r"}), (std::vector<std::string>{"x"}));
  // Still waiting for the rest.
  ReplInput input;
  EXPECT_FALSE(input.add_line("if x:"));
  EXPECT_FALSE(input.add_line("  y()"));
  EXPECT_FALSE(input.empty());
}

}  // namespace
}  // namespace sandbox::cli

// The calc language: numbers, + - * / % ^ (power, right-associative), parentheses, unary minus
// and variables (names looked up in the environment). One expression per program.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

namespace calc {

// A guest-level error: the program is wrong (syntax, unknown name, division by zero).
struct CalcError : std::runtime_error {
  CalcError(std::string error_name, const std::string& message, int column)
      : std::runtime_error(message), name(std::move(error_name)), column(column) {}
  std::string name;  // SyntaxError, NameError, ZeroDivisionError, ValueError
  int column;        // 1-based position in the code
};

// Evaluates `code`; throws CalcError for a guest-level error.
double evaluate(std::string_view code, const std::map<std::string, std::string>& env);

// Formats a value the way JavaScript's String(number) does for the common cases:
// integers without a decimal point, others in the shortest round-trip form.
std::string format_number(double value);

}  // namespace calc

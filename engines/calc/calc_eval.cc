#include "calc_eval.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <system_error>

namespace calc {
namespace {

constexpr int kMaxDepth = 256;  // nesting limit: bounds the parser's native stack use

class Parser {
 public:
  Parser(std::string_view code, const std::map<std::string, std::string>& env)
      : code_(code), env_(env) {}

  double parse_program() {
    skip_space();
    if (pos_ == code_.size()) fail("SyntaxError", "empty expression");
    const double v = parse_sum(0);
    skip_space();
    if (pos_ != code_.size()) fail("SyntaxError", std::string("unexpected '") + code_[pos_] + "'");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& name, const std::string& message) const {
    throw CalcError(name, message, static_cast<int>(pos_) + 1);
  }

  void skip_space() {
    while (pos_ < code_.size() && std::isspace(static_cast<unsigned char>(code_[pos_]))) ++pos_;
  }

  bool accept(char c) {
    skip_space();
    if (pos_ < code_.size() && code_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  // sum := product (('+' | '-') product)*
  double parse_sum(int depth) {
    double v = parse_product(depth);
    for (;;) {
      if (accept('+')) {
        v += parse_product(depth);
      } else if (accept('-')) {
        v -= parse_product(depth);
      } else {
        return v;
      }
    }
  }

  // product := unary (('*' | '/' | '%') unary)*
  double parse_product(int depth) {
    double v = parse_unary(depth);
    for (;;) {
      if (accept('*')) {
        v *= parse_unary(depth);
      } else if (accept('/')) {
        const double d = parse_unary(depth);
        if (d == 0) fail("ZeroDivisionError", "division by zero");
        v /= d;
      } else if (accept('%')) {
        const double d = parse_unary(depth);
        if (d == 0) fail("ZeroDivisionError", "modulo by zero");
        v = std::fmod(v, d);
      } else {
        return v;
      }
    }
  }

  // unary := '-' unary | power
  double parse_unary(int depth) {
    if (depth > kMaxDepth) fail("SyntaxError", "expression nested too deeply");
    if (accept('-')) return -parse_unary(depth + 1);
    if (accept('+')) return parse_unary(depth + 1);
    return parse_power(depth);
  }

  // power := atom ('^' unary)?   (right-associative: 2^3^2 = 2^9)
  double parse_power(int depth) {
    const double base = parse_atom(depth);
    if (accept('^')) return std::pow(base, parse_unary(depth + 1));
    return base;
  }

  // atom := number | name | '(' sum ')'
  double parse_atom(int depth) {
    skip_space();
    if (pos_ == code_.size()) fail("SyntaxError", "unexpected end of expression");
    const char c = code_[pos_];
    if (c == '(') {
      ++pos_;
      const double v = parse_sum(depth + 1);
      if (!accept(')')) fail("SyntaxError", "expected ')'");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return parse_number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return parse_name();
    fail("SyntaxError", std::string("unexpected '") + c + "'");
  }

  double parse_number() {
    const std::size_t start = pos_;
    while (pos_ < code_.size() &&
           (std::isdigit(static_cast<unsigned char>(code_[pos_])) || code_[pos_] == '.')) {
      ++pos_;
    }
    double v = 0;
    const auto [end, ec] = std::from_chars(code_.data() + start, code_.data() + pos_, v);
    if (ec != std::errc() || end != code_.data() + pos_) {
      pos_ = start;
      fail("SyntaxError", "invalid number");
    }
    return v;
  }

  double parse_name() {
    const std::size_t start = pos_;
    while (pos_ < code_.size() &&
           (std::isalnum(static_cast<unsigned char>(code_[pos_])) || code_[pos_] == '_')) {
      ++pos_;
    }
    const std::string name(code_.substr(start, pos_ - start));
    const auto it = env_.find(name);
    if (it == env_.end()) {
      pos_ = start;
      fail("NameError", "name '" + name + "' is not defined");
    }
    double v = 0;
    const std::string& text = it->second;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) {
      pos_ = start;
      fail("ValueError", "variable '" + name + "' is not a number: '" + text + "'");
    }
    return v;
  }

  std::string_view code_;
  const std::map<std::string, std::string>& env_;
  std::size_t pos_ = 0;
};

}  // namespace

double evaluate(std::string_view code, const std::map<std::string, std::string>& env) {
  return Parser(code, env).parse_program();
}

std::string format_number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value == 0) return "0";  // also -0, as JavaScript prints it
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(value);
}

}  // namespace calc

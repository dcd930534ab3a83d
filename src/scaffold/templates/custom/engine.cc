// {{project}}'s engine: a stateless skeleton, like the kit's calc example. Its language is
// integer arithmetic (+ - * / % and parentheses over 64-bit integers and environment
// variables); replace Evaluator with yours. Keep the rules of <sandbox/engine.h>: a guest-level
// error (a syntax error, a division by zero) is returned in outcome.error, never thrown, and
// `build` changes whenever the engine changes.
#include "engine.h"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace {{project}} {
namespace {

// The guest's own error: reported to the caller as a value (outcome.error).
class GuestError : public std::runtime_error {
 public:
  GuestError(std::string name, const std::string& message)
      : std::runtime_error(message), name_(std::move(name)) {}
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

// A recursive-descent evaluator. Nesting is capped so that hostile input cannot exhaust the
// native stack: the engine runs in the server's process.
class Evaluator {
 public:
  Evaluator(std::string_view code, const std::map<std::string, std::string>& env)
      : code_(code), env_(env) {}

  std::int64_t evaluate() {
    const std::int64_t value = sum();
    skip_spaces();
    if (pos_ < code_.size()) fail("SyntaxError", "unexpected '" + std::string(1, code_[pos_]) + "'");
    return value;
  }

 private:
  static constexpr int kMaxDepth = 200;

  [[noreturn]] static void fail(const char* name, const std::string& message) {
    throw GuestError(name, message);
  }

  void skip_spaces() {
    while (pos_ < code_.size() && std::isspace(static_cast<unsigned char>(code_[pos_]))) ++pos_;
  }

  bool take(char c) {
    skip_spaces();
    if (pos_ < code_.size() && code_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  std::int64_t sum() {
    std::int64_t value = product();
    for (;;) {
      if (take('+')) {
        if (__builtin_add_overflow(value, product(), &value)) fail("OverflowError", "integer overflow");
      } else if (take('-')) {
        if (__builtin_sub_overflow(value, product(), &value)) fail("OverflowError", "integer overflow");
      } else {
        return value;
      }
    }
  }

  std::int64_t product() {
    std::int64_t value = unary();
    for (;;) {
      const bool mul = take('*');
      const bool div = !mul && take('/');
      const bool mod = !mul && !div && take('%');
      if (!mul && !div && !mod) return value;
      const std::int64_t rhs = unary();
      if (mul) {
        if (__builtin_mul_overflow(value, rhs, &value)) fail("OverflowError", "integer overflow");
        continue;
      }
      if (rhs == 0) fail("ZeroDivisionError", "division by zero");
      if (value == std::numeric_limits<std::int64_t>::min() && rhs == -1) {
        fail("OverflowError", "integer overflow");
      }
      value = div ? value / rhs : value % rhs;
    }
  }

  std::int64_t unary() {
    if (take('-')) {
      if (++depth_ > kMaxDepth) fail("SyntaxError", "too deeply nested");
      const std::int64_t value = unary();
      --depth_;
      if (value == std::numeric_limits<std::int64_t>::min()) fail("OverflowError", "integer overflow");
      return -value;
    }
    return atom();
  }

  std::int64_t atom() {
    skip_spaces();
    if (pos_ == code_.size()) fail("SyntaxError", "unexpected end of input");
    if (take('(')) {
      if (++depth_ > kMaxDepth) fail("SyntaxError", "too deeply nested");
      const std::int64_t value = sum();
      if (!take(')')) fail("SyntaxError", "expected ')'");
      --depth_;
      return value;
    }
    const char c = code_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t end = pos_;
      while (end < code_.size() && std::isdigit(static_cast<unsigned char>(code_[end]))) ++end;
      const std::string_view digits = code_.substr(pos_, end - pos_);
      pos_ = end;
      return to_integer(digits, "integer literal " + std::string(digits) + " is out of range");
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t end = pos_;
      while (end < code_.size() &&
             (std::isalnum(static_cast<unsigned char>(code_[end])) || code_[end] == '_')) {
        ++end;
      }
      const std::string name(code_.substr(pos_, end - pos_));
      pos_ = end;
      const auto it = env_.find(name);
      if (it == env_.end()) fail("NameError", "name '" + name + "' is not defined");
      return to_integer(it->second, "the value of " + name + " is not an integer");
    }
    fail("SyntaxError", "unexpected '" + std::string(1, c) + "'");
  }

  static std::int64_t to_integer(std::string_view text, const std::string& problem) {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) fail("ValueError", problem);
    return value;
  }

  std::string_view code_;
  const std::map<std::string, std::string>& env_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

sandbox::Engine make_engine() {
  return sandbox::Engine{
      .language = "{{project}}",
      .engine_name = "{{project}} 0.1",
      .build = "{{project}}-0.1",  // change it with the engine: a snapshot of another build boots fresh
      .limits = {.fuel = 0, .memory_bytes = 1 << 20, .code_bytes = 65536, .request_bytes = 98304},
      .run = [](const sandbox::ExecutionRequest& request) {
        sandbox::EngineOutcome outcome;
        try {
          const std::int64_t value = Evaluator(request.code, request.env_vars).evaluate();
          outcome.results.push_back(sandbox::ResultEntry::of_text(std::to_string(value)));
        } catch (const GuestError& e) {
          outcome.error = sandbox::ExecutionError{
              .name = e.name(), .message = e.what(), .traceback = {}, .line_number = 1};
        }
        return outcome;
      },
      .sessions = std::nullopt,  // stateless only: GET /interpreter reports contexts: false
  };
}

}  // namespace {{project}}

#include "repl_input.h"

#include <algorithm>

namespace sandbox::cli {
namespace {

bool blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

int open_brackets(std::string_view code) {
  int depth = 0;
  char quote = 0;       // the open string's quote character, 0 outside strings
  bool triple = false;  // ''' or """
  for (std::size_t i = 0; i < code.size(); ++i) {
    const char c = code[i];
    const bool three = i + 2 < code.size() && code[i + 1] == c && code[i + 2] == c;
    if (quote != 0) {
      if (c == '\\') {
        ++i;
      } else if (c == '\n' && !triple && quote != '`') {
        quote = 0;
      } else if (c == quote && (!triple || three)) {
        if (triple) i += 2;
        quote = 0;
      }
      continue;
    }
    switch (c) {
      case '\'':
      case '"':
        quote = c;
        triple = three;
        if (triple) i += 2;
        break;
      case '`':
        quote = c;
        triple = false;
        break;
      case '(':
      case '[':
      case '{':
        ++depth;
        break;
      case ')':
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  const bool open_string = quote == '`' || (quote != 0 && triple);
  return depth + (open_string ? 1 : 0);
}

bool ReplInput::add_line(std::string line) {
  while (!line.empty() && line.back() == '\r') line.pop_back();
  if (!line.empty() && line.back() == '\\') {
    line.pop_back();
    buffer_ += line + "\n";
    return false;
  }
  buffer_ += line + "\n";
  if (in_block_) {
    if (!blank(line)) return false;
    in_block_ = false;
    return true;
  }
  if (open_brackets(buffer_) > 0) return false;
  if (trim_right(line).ends_with(':')) {
    in_block_ = true;
    return false;
  }
  return true;
}

std::string ReplInput::take() {
  std::string out = std::move(buffer_);
  buffer_.clear();
  in_block_ = false;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace sandbox::cli

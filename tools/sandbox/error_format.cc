#include "error_format.h"

#include <sstream>
#include <vector>

#include <sandbox/protocol.h>

namespace sandbox::cli {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string trimmed_left(const std::string& s) {
  const std::size_t start = s.find_first_not_of(" \t");
  return start == std::string::npos ? std::string() : s.substr(start);
}

// "Name: message" (or "Name"), which engines put first in the traceback as a header.
std::string headline(const ExecutionError& e) {
  return e.message.empty() ? e.name : e.name + ": " + e.message;
}

// The traceback without its header line, when the engine sent one.
std::vector<std::string> frames(const ExecutionError& e) {
  std::vector<std::string> out = e.traceback;
  if (!out.empty() && (out.front() == headline(e) || out.front() == e.name + ": " + e.message)) {
    out.erase(out.begin());
  }
  return out;
}

}  // namespace

std::string format_python_error(const ExecutionError& e) {
  std::string out;
  std::string message = e.message;
  const bool syntax =
      e.name == "SyntaxError" || e.name == "IndentationError" || e.name == "TabError";
  const auto tb = frames(e);
  if (syntax) {
    // str() of a SyntaxError ends in " (<file>, line N)"; CPython prints its msg without it.
    if (const std::size_t at = message.rfind(" (");
        at != std::string::npos && message.ends_with(")") &&
        message.find(", line ", at) != std::string::npos) {
      message.erase(at);
    }
    for (const auto& line : tb) out += line + "\n";
  } else if (!tb.empty()) {
    out += "Traceback (most recent call last):\n";
    for (const auto& line : tb) out += line + "\n";
  }
  out += (message.empty() ? e.name : e.name + ": " + message) + "\n";
  return out;
}

std::string format_ruby_error(const ExecutionError& e) {
  // Ruby prints an empty RuntimeError message as "unhandled exception".
  const std::string message = e.message.empty() ? "unhandled exception" : e.message;
  std::vector<std::string> lines = lines_of(message);
  if (lines.empty()) lines.push_back("");
  std::string out;
  if (!e.traceback.empty()) out += e.traceback.front() + ": ";
  out += lines.front() + " (" + e.name + ")\n";
  for (std::size_t i = 1; i < lines.size(); ++i) out += lines[i] + "\n";
  for (std::size_t i = 1; i < e.traceback.size(); ++i) out += "\tfrom " + e.traceback[i] + "\n";
  return out;
}

std::string format_perl_error(const ExecutionError& e) {
  std::string out = e.message;
  if (out.empty()) out = "Died";  // perl's word for die with nothing to say
  for (const auto& line : e.traceback) out += "\n" + line;
  return out + "\n";
}

std::string format_javascript_error(const ExecutionError& e) {
  std::string out = (e.name.empty() ? e.message : headline(e)) + "\n";
  for (const auto& line : frames(e)) {
    out += (line.starts_with("at ") ? "    " + line : line) + "\n";
  }
  return out;
}

std::string format_lua_error(const ExecutionError& e) {
  std::string out = "lua: " + e.message + "\n";
  const auto tb = frames(e);
  if (!tb.empty()) {
    out += "stack traceback:\n";
    for (const auto& line : tb) out += "\t" + trimmed_left(line) + "\n";
  }
  return out;
}

std::string format_guest_error(std::string_view language, const ExecutionError& error) {
  const std::string l = normalize_language(language);
  if (l == "python") return format_python_error(error);
  if (l == "ruby") return format_ruby_error(error);
  if (l == "perl") return format_perl_error(error);
  if (l == "javascript" || l == "typescript") return format_javascript_error(error);
  if (l == "lua") return format_lua_error(error);
  std::string out = headline(error) + "\n";
  for (const auto& line : error.traceback) out += "  " + line + "\n";
  return out;
}

}  // namespace sandbox::cli

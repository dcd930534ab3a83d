#include <algorithm>
#include <cctype>

#include <sandbox/protocol.h>

#include "base/lines.h"  // split_lines, declared in protocol.h too
#include "base/utf8.h"

namespace sandbox {

std::string normalize_language(std::string_view language) {
  std::string l(language);
  std::transform(l.begin(), l.end(), l.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (l == "python3") return "python";
  if (l == "js" || l == "node") return "javascript";
  if (l == "ts") return "typescript";
  return l;
}

bool language_accepted(std::string_view requested, std::string_view runtime_language) {
  const std::string l = normalize_language(requested);
  return l == runtime_language || (runtime_language == "javascript" && l == "typescript");
}

bool valid_env_key(std::string_view key) {
  if (key.empty()) return false;
  const auto c0 = static_cast<unsigned char>(key[0]);
  if (!(std::isalpha(c0) || c0 == '_')) return false;
  return std::all_of(key.begin() + 1, key.end(),
                     [](unsigned char c) { return (c < 0x80 && std::isalnum(c)) || c == '_'; });
}

bool valid_interpreter_key(std::string_view key) {
  if (key.empty() || key.size() > 128) return false;
  return std::all_of(key.begin(), key.end(), [](unsigned char c) {
    return (c < 0x80 && std::isalnum(c)) || c == '.' || c == '_' || c == '-';
  });
}

std::string truncate_error_message(std::string_view message) {
  return std::string(utf8_prefix(message, kErrorMessageLimit));
}

EngineOutcome engine_error_outcome(const std::exception& e) {
  EngineOutcome o;
  ExecutionError error;
  error.name =
      dynamic_cast<const ExecutionLimitError*>(&e) ? kExecutionLimitErrorName : "EngineError";
  error.message = truncate_error_message(e.what());
  o.error = std::move(error);
  return o;
}

}  // namespace sandbox

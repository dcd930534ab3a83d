#include "protocol/execute_request.h"

#include <algorithm>
#include <cctype>

#include <boost/json/parse.hpp>

#include <sandbox/protocol.h>

#include "protocol/env_limits.h"

namespace sandbox {
namespace {

bool is_blank(std::string_view s) {
  // JavaScript's String.prototype.trim() whitespace, restricted to what matters in practice:
  // ASCII whitespace, NBSP, and the Unicode space separators/line terminators in UTF-8.
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == ' ' || (c >= 0x09 && c <= 0x0d)) {
      ++i;
      continue;
    }
    const std::string_view rest = s.substr(i);
    static constexpr std::string_view kMultiByte[] = {
        "\xC2\xA0",     "\xE1\x9A\x80", "\xE2\x80\x80", "\xE2\x80\x81", "\xE2\x80\x82",
        "\xE2\x80\x83", "\xE2\x80\x84", "\xE2\x80\x85", "\xE2\x80\x86", "\xE2\x80\x87",
        "\xE2\x80\x88", "\xE2\x80\x89", "\xE2\x80\x8A", "\xE2\x80\xA8", "\xE2\x80\xA9",
        "\xE2\x80\xAF", "\xE2\x81\x9F", "\xE3\x80\x80", "\xEF\xBB\xBF"};
    bool matched = false;
    for (const auto ws : kMultiByte) {
      if (rest.starts_with(ws)) {
        i += ws.size();
        matched = true;
        break;
      }
    }
    if (!matched) return false;
  }
  return true;
}

}  // namespace

bool is_json_content_type(std::string_view content_type) {
  constexpr std::string_view kJson = "application/json";
  if (content_type.size() < kJson.size()) return false;
  return std::equal(kJson.begin(), kJson.end(), content_type.begin(), [](char a, char b) {
    return a == std::tolower(static_cast<unsigned char>(b));
  });
}

boost::json::object parse_json_object(std::string_view body) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(body, ec);
  if (ec) throw ApiError(ErrorKind::kBadRequest, "Invalid JSON");
  if (!v.is_object()) throw ApiError(ErrorKind::kBadRequest, "Expected an object");
  return std::move(v.as_object());
}

std::string_view require_code(const boost::json::value* code) {
  if (!code || !code->is_string() || is_blank(code->get_string())) {
    throw ApiError(ErrorKind::kBadRequest, "Non-empty code is required");
  }
  if (code->get_string().size() > kMaxCodeBytes)
    throw ApiError(ErrorKind::kRequestTooLarge, "Code exceeds 64 KiB");
  return code->get_string();
}

ExecutionRequest parse_execute_request(std::string_view body, std::string_view runtime_language) {
  if (body.empty()) throw ApiError(ErrorKind::kBadRequest, "JSON body required");
  const boost::json::object o = parse_json_object(body);
  if (o.contains("input")) {
    throw ApiError(ErrorKind::kBadRequest, "input is no longer supported; pass data with envVars");
  }
  if (const auto* lang = o.if_contains("language")) {
    if (!lang->is_string()) throw ApiError(ErrorKind::kBadRequest, "language must be a string");
    if (!language_accepted(lang->get_string(), runtime_language)) {
      throw ApiError(ErrorKind::kBadRequest,
                     "Unsupported language '" + std::string(lang->get_string()) +
                         "' on this runtime (" + std::string(runtime_language) + ")");
    }
  }
  ExecutionRequest request;
  request.code = std::string(require_code(o.if_contains("code")));
  if (const auto* env = o.if_contains("envVars")) {
    if (!env->is_object()) throw ApiError(ErrorKind::kBadRequest, "envVars must be an object");
    for (const auto& [key, value] : env->get_object()) {
      if (value.is_null()) continue;
      if (!value.is_string())
        throw ApiError(ErrorKind::kBadRequest, "envVars values must be strings");
      if (!valid_env_key(key)) continue;
      require_env_value(key, value.get_string());
      request.env_vars[std::string(key)] = std::string(value.get_string());
    }
    // No count or size cap here: a stateless request's variables are bounded by the body cap
    // (kMaxRequestBytes) alone, as in the protocol we are compatible with. kMaxEnvVars and
    // kMaxEnvBytes bound what is stored (a sandbox's and a context's variables).
  }
  return request;
}

}  // namespace sandbox

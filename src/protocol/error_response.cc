#include <sandbox/clock.h>
#include <sandbox/protocol.h>

#include "base/utf8.h"
#include "protocol/json_number.h"

namespace sandbox {
namespace {

// Error messages and contexts echo what the client sent (a path, an id), which may be any
// bytes; the serialized body must stay valid JSON, so ill-formed UTF-8 becomes U+FFFD. The
// context is built by the server (a few levels deep), so the recursion is bounded.
void sanitize_strings(boost::json::value& v) {
  if (auto* s = v.if_string()) {
    if (!is_valid_utf8(*s)) *s = sanitize_utf8(*s);
  } else if (auto* o = v.if_object()) {
    for (auto& [key, child] : *o) sanitize_strings(child);
  } else if (auto* a = v.if_array()) {
    for (auto& child : *a) sanitize_strings(child);
  }
}

}  // namespace

boost::json::object to_json(const ErrorResponse& e) {
  boost::json::object o;
  o["code"] = error_code_name(e.code);
  o["message"] = is_valid_utf8(e.message) ? e.message : sanitize_utf8(e.message);
  boost::json::value context = e.context;
  sanitize_strings(context);
  o["context"] = std::move(context);
  o["httpStatus"] = e.http_status;
  o["timestamp"] = e.timestamp;
  if (e.operation) o["operation"] = *e.operation;
  return o;
}

std::optional<ErrorResponse> error_response_from_json(const boost::json::value& v,
                                                      std::string* raw_code) {
  const auto* o = v.if_object();
  if (!o) return std::nullopt;
  const auto* code = o->if_contains("code");
  const auto* message = o->if_contains("message");
  if (!code || !code->is_string() || !message || !message->is_string()) return std::nullopt;
  ErrorResponse e;
  const std::string_view code_name = code->get_string();
  if (raw_code) *raw_code = std::string(code_name);
  const auto parsed = parse_error_code(code_name);
  e.code = parsed.value_or(ErrorCode::kInternalError);
  e.message = std::string(message->get_string());
  if (const auto* c = o->if_contains("context"); c && c->is_object()) e.context = c->get_object();
  // A status that is no int (1e300, 1.5) is ignored like a missing one rather than cast.
  const auto* s = o->if_contains("httpStatus");
  const auto status = s ? checked_integer<int>(*s) : std::nullopt;
  e.http_status = status ? *status : parsed ? error_code_status(*parsed) : 500;
  if (const auto* t = o->if_contains("timestamp"); t && t->is_string()) {
    e.timestamp = std::string(t->get_string());
  }
  if (const auto* op = o->if_contains("operation"); op && op->is_string()) {
    e.operation = std::string(op->get_string());
  }
  return e;
}

ErrorResponse ApiError::to_response(std::int64_t now_ms) const {
  ErrorResponse e;
  e.code = code_;
  e.message = what();
  e.context = context_;
  e.http_status = status_;
  e.timestamp = timestamp_ ? *timestamp_ : iso8601_ms(now_ms);
  e.operation = operation_;
  return e;
}

namespace {

ErrorResponse errno_response(const WorkspaceError& error, boost::json::object context,
                             std::int64_t now_ms, ErrorCode code, int status) {
  ErrorResponse e;
  e.code = code;
  e.message = error.what();
  for (const auto& [k, v] : error.details()) context[k] = v;
  context["errno"] = errno_name(error.code());
  if (const auto* op = context.if_contains("operation"); op && op->is_string()) {
    e.operation = std::string(op->get_string());
  }
  e.context = std::move(context);
  e.http_status = status;
  e.timestamp = iso8601_ms(now_ms);
  return e;
}

}  // namespace

ErrorResponse errno_error_response(const WorkspaceError& error, boost::json::object context,
                                   std::int64_t now_ms, std::optional<ErrorCode> code_override) {
  if (code_override) {
    return errno_response(error, std::move(context), now_ms, *code_override,
                          error_code_status(*code_override));
  }
  return errno_error_response(error, std::move(context), now_ms,
                              error_kind_for_errno(error.code()));
}

ErrorResponse errno_error_response(const WorkspaceError& error, boost::json::object context,
                                   std::int64_t now_ms, ErrorKind kind) {
  return errno_response(error, std::move(context), now_ms, error_kind_code(kind),
                        error_kind_status(kind));
}

ErrorResponse error_response_for(const std::exception& error, std::int64_t now_ms) {
  if (const auto* api = dynamic_cast<const ApiError*>(&error)) return api->to_response(now_ms);
  if (const auto* ws = dynamic_cast<const WorkspaceError*>(&error)) {
    return errno_error_response(*ws, {}, now_ms);
  }
  if (const auto* classified = dynamic_cast<const ClassifiedError*>(&error)) {
    return ApiError(classified->kind(), classified->wire_message()).to_response(now_ms);
  }
  return ApiError(ErrorKind::kUnexpected, "Engine execution failed").to_response(now_ms);
}

}  // namespace sandbox

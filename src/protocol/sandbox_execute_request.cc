#include "protocol/sandbox_execute_request.h"

#include <sandbox/protocol.h>

#include "protocol/execute_request.h"

namespace sandbox {

SandboxExecuteRequest decode_sandbox_execute_request(std::string_view body_text) {
  const boost::json::object body = parse_json_object(body_text);
  if (body.contains("cwd")) {
    throw ApiError(ErrorKind::kBadRequest,
                   "cwd is a context property; pass it to createCodeContext");
  }
  SandboxExecuteRequest r;
  r.code = std::string(require_code(body.if_contains("code")));
  if (const auto* e = body.if_contains("envVars"); e && !e->is_null()) {
    r.env = parse_env_patch(*e, true, /*capped=*/false);  // the merged set is checked
  }
  if (const auto* c = body.if_contains("contextId")) {
    if (!c->is_string() || c->get_string().empty()) {
      throw ApiError(ErrorKind::kBadRequest, "contextId must be a non-empty string");
    }
    r.context_id = std::string(c->get_string());
  }
  if (const auto* b = body.if_contains("binding")) {
    if (!b->is_string() || b->get_string().empty()) {
      throw ApiError(ErrorKind::kBadRequest, "binding must be a non-empty string");
    }
    r.binding = std::string(b->get_string());
  }
  if (!r.context_id && !r.binding) {
    throw ApiError(ErrorKind::kBadRequest, "Pass a context or a binding");
  }
  return r;
}

}  // namespace sandbox

#include "protocol/context_request.h"

#include <sandbox/protocol.h>
#include <sandbox/workspace.h>

#include "protocol/execute_request.h"

namespace sandbox {

ContextRequest decode_context_request(std::string_view body_text) {
  const boost::json::object body = parse_json_object(body_text);
  ContextRequest r;
  const auto* binding = body.if_contains("binding");
  if (!binding || !binding->is_string() || binding->get_string().empty()) {
    throw ApiError(ErrorKind::kBadRequest, "binding is required");
  }
  r.binding = std::string(binding->get_string());
  r.cwd = std::string(kWorkspaceRoot);
  if (const auto* c = body.if_contains("cwd")) {
    if (!c->is_string() || c->get_string().empty()) {
      throw ApiError(ErrorKind::kBadRequest, "cwd must be a non-empty string");
    }
    try {
      r.cwd = normalize_workspace_path(c->get_string()).absolute;
    } catch (const WorkspaceError& e) {
      throw ApiError(ErrorKind::kBadRequest, e.what());
    }
  }
  if (const auto* e = body.if_contains("envVars"); e && !e->is_null()) {
    // Never null: allow_null is false.
    for (auto& [k, v] : parse_env_patch(*e, false)) {
      if (v) r.env_vars[k] = *v;
    }
  }
  return r;
}

}  // namespace sandbox

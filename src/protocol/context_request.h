// Decoder of the POST /sandboxes/{id}/contexts body: {binding, cwd?, envVars?}. Every refusal is
// ApiError kBadRequest (400, docs/errors.md) with the message of the first rule broken:
// "binding is required", "cwd must be a non-empty string", the workspace path error of a cwd
// past the path limits (include/sandbox/workspace.h), then parse_env_patch's (nulls refused).
#pragma once

#include <string>
#include <string_view>

#include "protocol/env_patch.h"

namespace sandbox {

struct ContextRequest {
  std::string binding;
  std::string cwd;  // normalized and absolute; /workspace when not given
  EnvVars env_vars;
};

[[nodiscard]] ContextRequest decode_context_request(std::string_view body);

}  // namespace sandbox

// Decoder of the POST /sandboxes/{id}/execute body: {code, envVars?, contextId?, binding?}.
// Every refusal is ApiError kBadRequest (400) or kRequestTooLarge (413, code over kMaxCodeBytes),
// docs/errors.md, with the message of the first rule broken, in this order: cwd given (a
// context property), code, envVars, contextId, binding, neither contextId nor binding.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "protocol/env_patch.h"

namespace sandbox {

struct SandboxExecuteRequest {
  std::string code;
  EnvPatch env;  // the call's env vars; null values unset
  std::optional<std::string> context_id;
  std::optional<std::string> binding;
};

[[nodiscard]] SandboxExecuteRequest decode_sandbox_execute_request(std::string_view body);

}  // namespace sandbox

// Env vars on the caller side (docs/sandbox-api.md#env-vars): validation of the envVars
// objects the sandbox routes accept, and the merge sandbox -> context -> call.
//
// Unlike a runtime's stateless /execute (which drops bad keys), the sandbox rejects them.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "protocol/env_patch.h"
#include "protocol/env_vars_json.h"  // to_json(EnvVars), env_from_json

namespace sandbox {

// Applies `patch` to `base`: strings set, nullopt removes.
void apply_env_patch(EnvVars& base, const EnvPatch& patch);

// docs/sandbox-api.md#env-vars (EV3): the sandbox's vars, overlaid by the context's, overlaid by
// the call's (null unsets).
EnvVars merge_env(const EnvVars& sandbox, const EnvVars& context, const EnvPatch& call);

}  // namespace sandbox

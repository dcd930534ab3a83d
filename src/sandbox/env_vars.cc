#include "sandbox/env_vars.h"

namespace sandbox {

void apply_env_patch(EnvVars& base, const EnvPatch& patch) {
  for (const auto& [k, v] : patch) {
    if (v) {
      base[k] = *v;
    } else {
      base.erase(k);
    }
  }
}

EnvVars merge_env(const EnvVars& sandbox, const EnvVars& context, const EnvPatch& call) {
  EnvVars out = sandbox;
  for (const auto& [k, v] : context) out[k] = v;
  apply_env_patch(out, call);
  return out;
}

}  // namespace sandbox

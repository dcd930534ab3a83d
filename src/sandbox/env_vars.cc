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

boost::json::object to_json(const EnvVars& env) {
  boost::json::object o;
  for (const auto& [k, v] : env) o[k] = v;
  return o;
}

EnvVars env_from_json(const boost::json::value* value) {
  EnvVars env;
  if (!value || !value->is_object()) return env;
  for (const auto& [k, v] : value->get_object()) {
    if (v.is_string()) env[std::string(k)] = std::string(v.get_string());
  }
  return env;
}

}  // namespace sandbox

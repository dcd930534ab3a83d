#include "sandbox/env_vars.h"

#include <sandbox/protocol.h>

#include "protocol/env_limits.h"

namespace sandbox {

EnvPatch parse_env_patch(const boost::json::value& value, bool allow_null) {
  const auto* o = value.if_object();
  if (!o) throw ApiError(400, "envVars must be an object");
  EnvPatch patch;
  for (const auto& [key, v] : *o) {
    if (!valid_env_key(key)) throw ApiError(400, "Invalid envVars key: " + std::string(key));
    if (v.is_string()) {
      require_env_value(key, v.get_string());
      patch[std::string(key)] = std::string(v.get_string());
    } else if (v.is_null() && allow_null) {
      patch[std::string(key)] = std::nullopt;
    } else {
      throw ApiError(400, "envVars values must be strings");
    }
  }
  require_env_within_limits(patch);
  return patch;
}

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

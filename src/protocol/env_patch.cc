#include "protocol/env_patch.h"

#include <sandbox/protocol.h>

#include "protocol/env_limits.h"
#include "protocol/execute_request.h"

namespace sandbox {

EnvPatch parse_env_patch(const boost::json::value& value, bool allow_null, bool capped) {
  const auto* o = value.if_object();
  if (!o) throw ApiError(ErrorKind::kBadRequest, "envVars must be an object");
  EnvPatch patch;
  for (const auto& [key, v] : *o) {
    if (!valid_env_key(key)) {
      throw ApiError(ErrorKind::kBadRequest, "Invalid envVars key: " + std::string(key));
    }
    if (v.is_string()) {
      require_env_value(key, v.get_string());
      patch[std::string(key)] = std::string(v.get_string());
    } else if (v.is_null() && allow_null) {
      patch[std::string(key)] = std::nullopt;
    } else {
      throw ApiError(ErrorKind::kBadRequest, "envVars values must be strings");
    }
  }
  if (capped) require_env_within_limits(patch);
  return patch;
}

EnvPatch decode_env_request(std::string_view body) {
  const boost::json::object o = parse_json_object(body);
  const auto* env = o.if_contains("envVars");
  if (!env || env->is_null()) throw ApiError(ErrorKind::kBadRequest, "envVars is required");
  return parse_env_patch(*env, true);
}

}  // namespace sandbox

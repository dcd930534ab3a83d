#include "protocol/env_vars_json.h"

namespace sandbox {

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

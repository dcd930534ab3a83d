// Env vars on the caller side (docs/sandbox-api.md#env-vars): validation of the envVars
// objects the sandbox routes accept, and the merge sandbox -> context -> call.
//
// Unlike a runtime's stateless /execute (which drops bad keys), the sandbox rejects them.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <boost/json/value.hpp>

namespace sandbox {

using EnvVars = std::map<std::string, std::string>;
// A change to a set of env vars: a nullopt value removes the key.
using EnvPatch = std::map<std::string, std::optional<std::string>>;

// Parses an envVars object. Throws ApiError 400 "envVars must be an object" for a non-object,
// "Invalid envVars key: <k>" for a key outside ^[A-Za-z_][A-Za-z0-9_]*$, and "envVars values
// must be strings" for a value that is not a string (or null when `allow_null` is false), and
// the env limits' 400s (protocol/env_limits.h): a NUL in a value, more than kMaxEnvVars entries
// or kMaxEnvBytes of names and values.
EnvPatch parse_env_patch(const boost::json::value& value, bool allow_null);

// Applies `patch` to `base`: strings set, nullopt removes.
void apply_env_patch(EnvVars& base, const EnvPatch& patch);

// docs/sandbox-api.md#env-vars (EV3): the sandbox's vars, overlaid by the context's, overlaid by
// the call's (null unsets).
EnvVars merge_env(const EnvVars& sandbox, const EnvVars& context, const EnvPatch& call);

boost::json::object to_json(const EnvVars& env);
// Reads a stored {string: string} object; other values are skipped.
EnvVars env_from_json(const boost::json::value* value);

}  // namespace sandbox

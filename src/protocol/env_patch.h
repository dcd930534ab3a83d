// Decoder of the envVars objects the sandbox routes take (docs/errors.md kBadRequest for every
// refusal), and of the POST /sandboxes/{id}/env body.
//
// Unlike a runtime's stateless /execute (which drops bad keys), these reject them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/value.hpp>

namespace sandbox {

using EnvVars = std::map<std::string, std::string>;
// A change to a set of env vars: a nullopt value removes the key.
using EnvPatch = std::map<std::string, std::optional<std::string>>;

// Parses an envVars object. Throws ApiError 400 "envVars must be an object" for a non-object,
// "Invalid envVars key: <k>" for a key outside ^[A-Za-z_][A-Za-z0-9_]*$, and "envVars values
// must be strings" for a value that is not a string (or null when `allow_null` is false), and
// the env limits' 400s (protocol/env_limits.h): a NUL in a value, and, when `capped`, more
// than kMaxEnvVars entries or kMaxEnvBytes of names and values. A key given twice counts once,
// its last value kept. An execute body is parsed uncapped: a stateless run takes what its body
// holds, and a context's run checks the merged set.
[[nodiscard]] EnvPatch parse_env_patch(const boost::json::value& value, bool allow_null,
                                       bool capped = true);

// The body of POST /sandboxes/{id}/env: {envVars} with nulls unsetting. Throws ApiError 400
// "Invalid JSON" / "Expected an object", "envVars is required" when absent or null, and
// parse_env_patch's errors.
[[nodiscard]] EnvPatch decode_env_request(std::string_view body);

}  // namespace sandbox

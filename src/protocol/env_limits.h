// The limits on env vars (kMaxEnvVars, kMaxEnvBytes, no NUL in a value; include/sandbox/
// protocol.h), checked wherever env vars enter: the runtime's /execute and execute-in-context
// bodies and the sandbox routes (src/sandbox/env_vars.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace sandbox {

// Throws ApiError 400 "envVars value of 'NAME' contains a NUL character" when `value` has one.
void require_env_value(std::string_view name, std::string_view value);

// Throws ApiError 400 naming the limit when `count` variables of `bytes` bytes (names plus
// values) exceed kMaxEnvVars or kMaxEnvBytes. `what` names the set in the message ("envVars",
// "the sandbox's envVars", ...).
void require_env_within_limits(std::size_t count, std::uint64_t bytes,
                               std::string_view what = "envVars");

// The same for a whole set (a null value counts its name only).
void require_env_within_limits(const std::map<std::string, std::string>& env,
                               std::string_view what = "envVars");
void require_env_within_limits(const std::map<std::string, std::optional<std::string>>& env,
                               std::string_view what = "envVars");

}  // namespace sandbox

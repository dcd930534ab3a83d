#include "protocol/env_limits.h"

#include <sandbox/protocol.h>

namespace sandbox {
namespace {

template <typename Map, typename Size>
void require_map_within_limits(const Map& env, std::string_view what, Size value_size) {
  std::uint64_t bytes = 0;
  for (const auto& [name, value] : env) bytes += name.size() + value_size(value);
  require_env_within_limits(env.size(), bytes, what);
}

}  // namespace

void require_env_value(std::string_view name, std::string_view value) {
  if (value.find('\0') != std::string_view::npos) {
    throw ApiError(ErrorKind::kBadRequest,
                   "envVars value of '" + std::string(name) + "' contains a NUL character");
  }
}

void require_env_within_limits(std::size_t count, std::uint64_t bytes, std::string_view what) {
  if (count > kMaxEnvVars) {
    throw ApiError(ErrorKind::kBadRequest,
                   std::string(what) + " may hold at most " + std::to_string(kMaxEnvVars) +
                       " variables (kMaxEnvVars), got " + std::to_string(count));
  }
  if (bytes > kMaxEnvBytes) {
    throw ApiError(ErrorKind::kBadRequest,
                   std::string(what) + " may hold at most " + std::to_string(kMaxEnvBytes) +
                       " bytes of names and values (kMaxEnvBytes), got " + std::to_string(bytes));
  }
}

void require_env_within_limits(const std::map<std::string, std::string>& env,
                               std::string_view what) {
  require_map_within_limits(env, what, [](const std::string& v) { return v.size(); });
}

void require_env_within_limits(const std::map<std::string, std::optional<std::string>>& env,
                               std::string_view what) {
  require_map_within_limits(env, what, [](const std::optional<std::string>& v) {
    return v ? v->size() : std::size_t{0};
  });
}

}  // namespace sandbox

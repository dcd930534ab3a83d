#include "protocol/interpreter_execute_request.h"

#include "base/base64.h"
#include "protocol/env_limits.h"
#include "protocol/execute_request.h"
#include "protocol/json_number.h"

namespace sandbox {

void validate_execute_args(const InterpreterExecuteArgs& args) {
  const boost::json::value code(args.code);
  require_code(&code);
  if (args.context_id.empty())
    throw ApiError(ErrorKind::kBadRequest, "contextId must be a non-empty string");
}

HttpExecuteArgs parse_http_execute_args(std::string_view body) {
  const boost::json::object o = parse_json_object(body);
  HttpExecuteArgs out;
  InterpreterExecuteArgs& a = out.args;
  a.code = std::string(require_code(o.if_contains("code")));
  if (const auto* env = o.if_contains("envVars"); env && !env->is_null()) {
    if (!env->is_object()) throw ApiError(ErrorKind::kBadRequest, "envVars must be an object");
    for (const auto& [k, v] : env->get_object()) {
      if (!v.is_string()) throw ApiError(ErrorKind::kBadRequest, "envVars values must be strings");
      require_env_value(k, v.get_string());
      a.env_vars[std::string(k)] = std::string(v.get_string());
    }
    require_env_within_limits(a.env_vars);
  }
  const auto* id = o.if_contains("contextId");
  if (!id || !id->is_string() || id->get_string().empty()) {
    throw ApiError(ErrorKind::kBadRequest, "contextId must be a non-empty string");
  }
  a.context_id = std::string(id->get_string());
  const auto* ws = o.if_contains("workspace");
  if (!ws || !ws->is_object()) throw ApiError(ErrorKind::kBadRequest, "workspace is required");
  const auto& w = ws->get_object();
  const auto* dirs = w.if_contains("dirs");
  if (!dirs || !dirs->is_array())
    throw ApiError(ErrorKind::kBadRequest, "workspace.dirs must be an array of strings");
  for (const auto& d : dirs->get_array()) {
    if (!d.is_string())
      throw ApiError(ErrorKind::kBadRequest, "workspace.dirs must be an array of strings");
    a.workspace.dirs.emplace_back(d.get_string());
  }
  const auto* manifest = w.if_contains("manifest");
  if (!manifest || !manifest->is_object())
    throw ApiError(ErrorKind::kBadRequest, "workspace.manifest must be an object");
  for (const auto& [path, hash] : manifest->get_object()) {
    if (!hash.is_string()) {
      throw ApiError(ErrorKind::kBadRequest,
                     "workspace.manifest must map string paths to string hashes");
    }
    a.workspace.manifest[std::string(path)] = std::string(hash.get_string());
  }
  if (const auto* disabled = w.if_contains("disabled")) {
    if (!disabled->is_bool())
      throw ApiError(ErrorKind::kBadRequest, "workspace.disabled must be a boolean");
    a.workspace.disabled = disabled->get_bool();
  }
  if (const auto* files = w.if_contains("files"); files && !files->is_null()) {
    const char* kShape = "workspace.files must be an array of {path, data, updatedAt}";
    if (!files->is_array()) throw ApiError(ErrorKind::kBadRequest, kShape);
    for (const auto& f : files->get_array()) {
      const auto* fo = f.if_object();
      const auto* path = fo ? fo->if_contains("path") : nullptr;
      const auto* data = fo ? fo->if_contains("data") : nullptr;
      const auto* updated = fo ? fo->if_contains("updatedAt") : nullptr;
      if (!path || !path->is_string() || !data || !data->is_string() || !updated ||
          !updated->is_number()) {
        throw ApiError(ErrorKind::kBadRequest, kShape);
      }
      // A double out of int64's range (1e300, 1e400 parsed as inf) must not reach a cast.
      const auto updated_at = checked_int64(*updated);
      if (!updated_at) {
        throw ApiError(ErrorKind::kBadRequest,
                       "workspace.files[].updatedAt must be an integer (epoch milliseconds)");
      }
      auto bytes = base64_decode(data->get_string());
      if (!bytes)
        throw ApiError(ErrorKind::kBadRequest, "Invalid base64 content in workspace.files");
      out.files.push_back(
          SyncFile{std::string(path->get_string()), std::move(*bytes), *updated_at});
    }
  }
  return out;
}

}  // namespace sandbox

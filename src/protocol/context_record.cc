#include "protocol/context_record.h"

#include <sandbox/protocol.h>

#include "protocol/json_fields.h"
#include "protocol/json_number.h"
#include "protocol/sandbox_responses.h"

namespace sandbox {
boost::json::object ContextRecord::to_json() const {
  boost::json::object o = to_info_json();
  o["envVars"] = sandbox::to_json(env_vars);
  return o;
}

boost::json::object ContextRecord::to_info_json() const {
  boost::json::object o{
      {"id", id},   {"binding", binding},      {"language", language},  {"engine", engine},
      {"cwd", cwd}, {"createdAt", created_at}, {"lastUsed", last_used}, {"executions", executions}};
  if (snapshot) {
    o["snapshot"] = sandbox::to_json(*snapshot);
  } else {
    o["snapshot"] = nullptr;
  }
  return o;
}

boost::json::object ContextRecord::to_public_json() const {
  return sandbox::to_json(CodeContext{id, binding, language, cwd, created_at, last_used});
}

ContextRecord ContextRecord::from_json(const boost::json::object& o) {
  ContextRecord r;
  r.id = string_field(o, "id");
  r.binding = string_field(o, "binding");
  r.language = string_field(o, "language");
  r.engine = string_field(o, "engine");
  r.cwd = string_field(o, "cwd");
  if (r.cwd.empty()) r.cwd = "/workspace";
  r.env_vars = env_from_json(o.if_contains("envVars"));
  r.created_at = string_field(o, "createdAt");
  r.last_used = string_field(o, "lastUsed");
  if (const auto* e = o.if_contains("executions")) {
    // A stored row is hostile too: a count no uint64 holds reads as 0, like a missing one.
    r.executions = checked_uint64(*e).value_or(0);
  }
  if (const auto* snapshot = o.if_contains("snapshot"))
    r.snapshot = snapshot_info_from_json(*snapshot);
  return r;
}

}  // namespace sandbox

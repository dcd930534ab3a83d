#include "protocol/context_row.h"

#include <stdexcept>

#include "protocol/json_fields.h"
#include "protocol/json_number.h"

namespace sandbox {

boost::json::object to_json(const ContextRow& row) {
  boost::json::object o;
  o["id"] = row.id;
  o["cwd"] = row.cwd;
  o["createdAt"] = row.created_at;
  o["lastUsed"] = row.last_used;
  o["executions"] = row.executions;
  if (row.snapshot) {
    o["snapshot"] = to_json(*row.snapshot);
  } else {
    o["snapshot"] = nullptr;
  }
  return o;
}

ContextRow parse_context_row(const boost::json::object& o) {
  ContextRow row;
  const auto* id = o.if_contains("id");
  if (!id || !id->is_string()) throw std::invalid_argument("context row without an id");
  row.id = std::string(id->get_string());
  row.cwd = string_field(o, "cwd", "/workspace");
  row.created_at = string_field(o, "createdAt");
  row.last_used = string_field(o, "lastUsed", row.created_at);
  if (const auto* e = o.if_contains("executions")) {
    // A stored row is hostile too: a count no uint64 holds (1e300, -1) reads as 0, not a cast.
    row.executions = checked_uint64(*e).value_or(0);
  }
  if (const auto* s = o.if_contains("snapshot"); s && s->is_object()) {
    row.snapshot = parse_snapshot_record(*s);
  }
  return row;
}

}  // namespace sandbox

#include "sandbox/execute_response_json.h"

#include <sandbox/protocol.h>

#include "base/base64.h"
#include "protocol/json_number.h"
#include "sandbox/binding.h"

namespace sandbox {
namespace {

[[noreturn]] void invalid(const std::string& what) {
  throw BindingError("invalid execute response: " + what);
}

std::vector<std::string> string_array(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (!v || !v->is_array()) invalid(std::string(key) + " must be an array of strings");
  std::vector<std::string> out;
  for (const auto& e : v->get_array()) {
    if (!e.is_string()) invalid(std::string(key) + " must be an array of strings");
    out.emplace_back(e.get_string());
  }
  return out;
}

// A missing or non-number field reads as 0 (as before); a number that is no int64 (1e300, a
// fraction) makes the response invalid rather than reach a cast.
std::int64_t integer(const boost::json::value* v, std::string_view field) {
  if (!v || !v->is_number()) return 0;
  const auto i = checked_int64(*v);
  if (!i) invalid(std::string(field) + " must be an integer");
  return *i;
}

std::uint64_t count(const boost::json::value* v, std::string_view field) {
  if (!v || !v->is_number()) return 0;
  const auto u = checked_uint64(*v);
  if (!u) invalid(std::string(field) + " must be a non-negative integer");
  return *u;
}

}  // namespace

InterpreterExecuteResponse execute_response_from_json(const boost::json::object& o) {
  InterpreterExecuteResponse r;
  try {
    r.result = execution_result_from_json(o);
  } catch (const ApiError&) {
    invalid("results and logs are required");
  }
  r.execution_count = count(o.if_contains("executionCount"), "executionCount");
  const auto* context = o.if_contains("context");
  if (!context || !context->is_object()) invalid("context must be an object");
  const auto& c = context->get_object();
  const auto* id = c.if_contains("id");
  const auto* cwd = c.if_contains("cwd");
  if (!id || !id->is_string() || !cwd || !cwd->is_string()) {
    invalid("context.id and context.cwd must be strings");
  }
  r.context.id = id->get_string();
  r.context.cwd = cwd->get_string();
  r.context.executions = count(c.if_contains("executions"), "context.executions");
  if (const auto* ms = c.if_contains("snapshotMs"); ms && ms->is_number()) {
    r.context.snapshot_ms = ms->to_number<double>();
  }
  if (const auto* snapshot = c.if_contains("snapshot")) {
    r.context.snapshot = snapshot_info_from_json(*snapshot);
  }

  const auto* workspace = o.if_contains("workspace");
  if (!workspace || !workspace->is_object()) invalid("workspace must be an object");
  const auto& w = workspace->get_object();
  r.dirs = string_array(w, "dirs");
  r.deleted = string_array(w, "deleted");
  const auto* files = w.if_contains("files");
  if (!files || !files->is_array()) invalid("workspace.files must be an array");
  for (const auto& f : files->get_array()) {
    const auto* fo = f.if_object();
    const auto* path = fo ? fo->if_contains("path") : nullptr;
    const auto* data = fo ? fo->if_contains("data") : nullptr;
    if (!path || !path->is_string() || !data || !data->is_string()) {
      invalid("workspace.files entries need a string path and base64 data");
    }
    auto bytes = base64_decode(data->get_string());
    if (!bytes) invalid("workspace file data is not base64");
    r.files.push_back(
        WorkspaceFileEntry{std::string(path->get_string()), std::move(*bytes),
                           integer(fo->if_contains("updatedAt"), "workspace.files[].updatedAt")});
  }
  return r;
}

}  // namespace sandbox

#include <sandbox/interpreter.h>

#include "base/base64.h"

namespace sandbox {

boost::json::object to_json(const InterpreterExecuteResponse& r, bool base64_files) {
  boost::json::object o = to_json(r.result);
  o["executionCount"] = r.execution_count;
  boost::json::object context{
      {"id", r.context.id}, {"cwd", r.context.cwd}, {"executions", r.context.executions}};
  if (r.context.snapshot_ms) context["snapshotMs"] = *r.context.snapshot_ms;
  if (r.context.snapshot) {
    context["snapshot"] = to_json(*r.context.snapshot);
  } else {
    context["snapshot"] = nullptr;
  }
  o["context"] = std::move(context);
  boost::json::array dirs;
  for (const auto& d : r.dirs) dirs.emplace_back(d);
  boost::json::array files;
  for (const auto& f : r.files) {
    boost::json::object entry{{"path", f.path}, {"updatedAt", f.updated_at}};
    if (base64_files) {
      entry["data"] = base64_encode(f.data);
    } else {
      boost::json::array bytes;
      for (const auto b : f.data) bytes.emplace_back(b);
      entry["data"] = std::move(bytes);
    }
    files.push_back(std::move(entry));
  }
  boost::json::array deleted;
  for (const auto& d : r.deleted) deleted.emplace_back(d);
  o["workspace"] = boost::json::object{
      {"dirs", std::move(dirs)}, {"files", std::move(files)}, {"deleted", std::move(deleted)}};
  return o;
}

}  // namespace sandbox

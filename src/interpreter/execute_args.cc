#include "interpreter/execute_args.h"

#include "base/base64.h"

namespace sandbox {

boost::json::object to_json(const InterpreterExecuteArgs& args,
                            const std::vector<WorkspaceFileEntry>& files) {
  boost::json::object env;
  for (const auto& [k, v] : args.env_vars) env[k] = v;
  boost::json::array dirs;
  for (const auto& d : args.workspace.dirs) dirs.emplace_back(d);
  boost::json::object manifest;
  for (const auto& [p, h] : args.workspace.manifest) manifest[p] = h;
  boost::json::array file_list;
  for (const auto& f : files) {
    file_list.push_back(boost::json::object{
        {"path", f.path}, {"data", base64_encode(f.data)}, {"updatedAt", f.updated_at}});
  }
  boost::json::object workspace{{"dirs", std::move(dirs)},
                                {"manifest", std::move(manifest)},
                                {"files", std::move(file_list)}};
  if (args.workspace.disabled) workspace["disabled"] = true;
  return {{"contextId", args.context_id},
          {"code", args.code},
          {"envVars", std::move(env)},
          {"workspace", std::move(workspace)}};
}

}  // namespace sandbox

// Helpers shared by the workspace tests.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <sandbox/workspace.h>

namespace sandbox::testing_ws {

inline std::vector<std::uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

inline std::string text_of(const std::vector<std::uint8_t>& b) { return {b.begin(), b.end()}; }

// Names of the direct children of `node`, in order.
inline std::vector<std::string> child_names(const WorkspaceNode& node) {
  std::vector<std::string> out;
  for (const auto& [name, child] : node.children) out.push_back(name);
  return out;
}

inline std::vector<std::string> paths_of(const std::vector<WorkspaceRow>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.path);
  return out;
}

}  // namespace sandbox::testing_ws

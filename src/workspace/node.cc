// WorkspaceNode: a directory's children behave like a JavaScript Map (insertion order; replacing
// a key keeps its position; erase + insert moves it to the end).
#include <algorithm>

#include <sandbox/workspace.h>

namespace sandbox {

std::shared_ptr<WorkspaceNode> WorkspaceNode::find(std::string_view name) const {
  for (const auto& [child_name, child] : children) {
    if (child_name == name) return child;
  }
  return nullptr;
}

void WorkspaceNode::put(const std::string& name, std::shared_ptr<WorkspaceNode> node) {
  for (auto& [child_name, child] : children) {
    if (child_name == name) {
      child = std::move(node);
      return;
    }
  }
  children.emplace_back(name, std::move(node));
}

bool WorkspaceNode::erase(std::string_view name) {
  const auto it = std::find_if(children.begin(), children.end(),
                               [&](const Child& c) { return c.first == name; });
  if (it == children.end()) return false;
  children.erase(it);
  return true;
}

}  // namespace sandbox

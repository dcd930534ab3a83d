// WorkspaceNode: a directory's children behave like a JavaScript Map (insertion order; replacing
// a key keeps its position; erase + insert moves it to the end).
#include <algorithm>
#include <vector>

#include <sandbox/workspace.h>

namespace sandbox {

WorkspaceNode::~WorkspaceNode() {
  if (children.empty()) return;
  // Children whose last owner is this node are emptied before they are released, so releasing
  // never recurses more than one level whatever the depth. A child still owned elsewhere (an
  // open descriptor) keeps its subtree; its own destructor does the same when it goes.
  std::vector<std::shared_ptr<WorkspaceNode>> pending;
  pending.reserve(children.size());
  for (auto& child : children) pending.push_back(std::move(child.second));
  children.clear();
  while (!pending.empty()) {
    std::shared_ptr<WorkspaceNode> node = std::move(pending.back());
    pending.pop_back();
    if (node.use_count() == 1) {
      for (auto& child : node->children) pending.push_back(std::move(child.second));
      node->children.clear();
    }
  }
}

const std::string& WorkspaceNode::data_hash() const {
  if (data_hash_.empty()) data_hash_ = content_hash(data);  // never empty once computed
  return data_hash_;
}

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

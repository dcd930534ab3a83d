#include "workspace/tree_walk.h"

#include <algorithm>

namespace sandbox::workspace_tree {

Position subtree_extent(const WorkspaceNode& node) {
  Position extent;
  walk_nodes(node, [&](const WorkspaceNode&, Position at) {
    extent.depth = std::max(extent.depth, at.depth);
    extent.bytes = std::max(extent.bytes, at.bytes);
    return true;
  });
  return extent;
}

bool subtree_contains(const WorkspaceNode& node, const WorkspaceNode* target) {
  if (&node == target) return true;
  bool found = false;
  walk_nodes(node, [&](const WorkspaceNode& child, Position) {
    if (&child == target) found = true;
    return !found;
  });
  return found;
}

WorkspaceStats count(const WorkspaceNode& dir) {
  WorkspaceStats out;
  walk_nodes(dir, [&](const WorkspaceNode& node, Position) {
    ++out.entries;
    if (!node.is_dir()) out.bytes += node.data.size();
    return true;
  });
  return out;
}

bool fits_path_limits(Position position, Position extent) {
  return position.depth + extent.depth <= kMaxPathDepth &&
         kWorkspaceRoot.size() + position.bytes + extent.bytes <= kMaxPathBytes;
}

}  // namespace sandbox::workspace_tree

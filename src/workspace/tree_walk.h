// Walks over WorkspaceNode trees, shared by the Workspace and the WASI host.
//
// Every walk is iterative (an explicit stack, never recursion) and builds paths in one buffer
// that grows and shrinks as the walk descends and climbs, so its cost is linear in the number of
// nodes and the bytes of their names, whatever the depth. Trees a guest holds outside the
// workspace (directories removed while a descriptor points into them) have no depth limit.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <sandbox/workspace.h>

namespace sandbox::workspace_tree {

// Depth-first pre-order walk below `dir` in insertion order. `fn(path, node)` gets each node's
// path (`path` as given + "/" + the names down to it; valid only during the call) and returns
// whether to descend into a directory.
template <typename Fn>
void walk_preorder(const WorkspaceNode& dir, std::string path, Fn&& fn) {
  struct Frame {
    const WorkspaceNode* dir;
    std::size_t next;
    std::size_t length;  // of `path` naming `dir`
  };
  std::vector<Frame> stack;
  stack.push_back({&dir, 0, path.size()});
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next >= top.dir->children.size()) {
      stack.pop_back();
      continue;
    }
    const auto& [name, child] = top.dir->children[top.next++];
    path.resize(top.length);
    path.append("/").append(name);
    const bool descend = fn(std::as_const(path), *child);
    if (descend && child->is_dir()) stack.push_back({child.get(), 0, path.size()});
  }
}

// Where a node sits below the directory a walk started from.
struct Position {
  std::size_t depth = 0;  // 1 for a child of the start
  std::size_t bytes = 0;  // of its relative path "/a/b"
};

// Pre-order walk below `dir` without building paths. `fn(node, position)` returns whether to
// descend into a directory.
template <typename Fn>
void walk_nodes(const WorkspaceNode& dir, Fn&& fn) {
  struct Frame {
    const WorkspaceNode* dir;
    std::size_t next;
    Position at;
  };
  std::vector<Frame> stack;
  stack.push_back({&dir, 0, {}});
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next >= top.dir->children.size()) {
      stack.pop_back();
      continue;
    }
    const auto& [name, child] = top.dir->children[top.next++];
    const Position at{top.at.depth + 1, top.at.bytes + 1 + name.size()};
    const bool descend = fn(*child, at);
    if (descend && child->is_dir()) stack.push_back({child.get(), 0, at});
  }
}

// The deepest level below `node` and its longest relative path (both 0 for a file or an empty
// directory).
Position subtree_extent(const WorkspaceNode& node);

// Whether `target` is `node` or below it.
bool subtree_contains(const WorkspaceNode& node, const WorkspaceNode* target);

// Files and directories below `dir` (itself excluded) and the sum of file sizes.
WorkspaceStats count(const WorkspaceNode& dir);

// Whether something of depth `extent.depth` and relative length `extent.bytes` fits at
// `position` below /workspace (kMaxPathDepth, kMaxPathBytes).
bool fits_path_limits(Position position, Position extent);

}  // namespace sandbox::workspace_tree

// Guest path parsing and lookup below a directory node.
//
// WASI paths are relative to a directory fd. Parsing is lexical, as in upstream's shim: empty
// and "." segments are skipped, ".." removes the previous segment, and a ".." with nothing to
// remove — an escape above the directory fd — is ENOTCAPABLE, as is an absolute path. So a
// lookup can never leave the subtree of the fd it starts from.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <sandbox/workspace.h>

namespace sandbox::wasi {

struct GuestPath {
  std::vector<std::string> segments;  // empty: the directory itself
  bool trailing_slash = false;        // "a/" must name a directory
};

// Returns a WASI errno: ENOENT for "", ENOTCAPABLE for an absolute path or an escape, EILSEQ
// for bytes that are not UTF-8 (the tree's names travel as JSON strings), EINVAL for a NUL,
// ENAMETOOLONG past kMaxPathBytes or for a segment over kMaxPathSegmentBytes.
std::uint32_t parse_guest_path(std::string_view raw, GuestPath& out);

struct Lookup {
  std::shared_ptr<WorkspaceNode> parent;  // the directory holding `name`; null for the fd's own dir
  std::string name;                       // the last segment ("" for the fd's own dir)
  std::shared_ptr<WorkspaceNode> node;    // the target, or null when it does not exist
};

// Walks every segment but the last from `dir`. Returns ENOENT when an intermediate directory
// is missing and ENOTDIR when one is a file; the target itself may be missing (node == null).
std::uint32_t lookup(const std::shared_ptr<WorkspaceNode>& dir, const GuestPath& path, Lookup& out);

}  // namespace sandbox::wasi

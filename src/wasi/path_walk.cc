#include "wasi/path_walk.h"

#include "base/utf8.h"
#include "wasi/abi.h"

namespace sandbox::wasi {

std::uint32_t parse_guest_path(std::string_view raw, GuestPath& out) {
  out = GuestPath{};
  if (raw.empty()) return kENoent;
  if (raw.size() > kMaxPathBytes) return kENametoolong;
  if (raw.find('\0') != std::string_view::npos) return kEInval;
  if (raw.front() == '/') return kENotcapable;
  if (!is_valid_utf8(raw)) return kEIlseq;
  std::size_t start = 0;
  while (start <= raw.size()) {
    std::size_t slash = raw.find('/', start);
    if (slash == std::string_view::npos) slash = raw.size();
    const std::string_view seg = raw.substr(start, slash - start);
    start = slash + 1;
    if (seg.empty() || seg == ".") continue;
    if (seg.size() > kMaxPathSegmentBytes) return kENametoolong;
    if (seg == "..") {
      if (out.segments.empty()) return kENotcapable;
      out.segments.pop_back();
      continue;
    }
    out.segments.emplace_back(seg);
  }
  out.trailing_slash = raw.back() == '/';
  return kSuccess;
}

std::uint32_t lookup(const std::shared_ptr<WorkspaceNode>& dir, const GuestPath& path,
                     Lookup& out) {
  out = Lookup{};
  if (path.segments.empty()) {
    out.node = dir;
    return kSuccess;
  }
  std::shared_ptr<WorkspaceNode> current = dir;
  for (std::size_t i = 0; i + 1 < path.segments.size(); ++i) {
    auto next = current->find(path.segments[i]);
    if (!next) return kENoent;
    if (!next->is_dir()) return kENotdir;
    current = std::move(next);
  }
  out.name = path.segments.back();
  out.node = current->find(out.name);
  out.parent = std::move(current);
  return kSuccess;
}

}  // namespace sandbox::wasi

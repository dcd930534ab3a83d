// §6.2 path normalization and the errno names.
#include <sandbox/workspace.h>

namespace sandbox {

std::string_view errno_name(Errno e) {
  switch (e) {
    case Errno::kENOENT:
      return "ENOENT";
    case Errno::kEEXIST:
      return "EEXIST";
    case Errno::kEACCES:
      return "EACCES";
    case Errno::kEISDIR:
      return "EISDIR";
    case Errno::kENOTDIR:
      return "ENOTDIR";
    case Errno::kEFBIG:
      return "EFBIG";
    case Errno::kENOSPC:
      return "ENOSPC";
    case Errno::kENOTEMPTY:
      return "ENOTEMPTY";
    case Errno::kEINVAL:
      return "EINVAL";
  }
  return "EINVAL";
}

NormalizedPath normalize_workspace_path(std::string_view path, std::string_view cwd) {
  if (path.empty()) throw WorkspaceError(Errno::kENOENT, "Path is required");
  std::string base;
  if (path.front() == '/') {
    base = path;
  } else {
    base.reserve(cwd.size() + 1 + path.size());
    base.append(cwd).append("/").append(path);
  }
  const auto escapes = [&] {
    return WorkspaceError(Errno::kEACCES, "Path escapes /workspace: " + std::string(path));
  };
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= base.size()) {
    std::size_t end = base.find('/', start);
    if (end == std::string::npos) end = base.size();
    std::string_view seg(base.data() + start, end - start);
    start = end + 1;
    if (seg.empty() || seg == ".") continue;
    if (seg == "..") {
      if (parts.empty()) throw escapes();
      parts.pop_back();
      continue;
    }
    parts.emplace_back(seg);
  }
  if (parts.empty() || parts.front() != "workspace") throw escapes();
  NormalizedPath out;
  out.segments.assign(std::make_move_iterator(parts.begin() + 1),
                      std::make_move_iterator(parts.end()));
  out.absolute = kWorkspaceRoot;
  for (const auto& seg : out.segments) out.absolute.append("/").append(seg);
  return out;
}

}  // namespace sandbox

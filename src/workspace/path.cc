// Path normalization (docs/protocol.md#path-normalization) and the errno names.
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
    case Errno::kENAMETOOLONG:
      return "ENAMETOOLONG";
  }
  return "EINVAL";
}

NormalizedPath normalize_workspace_path(std::string_view path, std::string_view cwd) {
  if (path.empty()) throw WorkspaceError(Errno::kENOENT, "Path is required");
  // Checked before anything is split or copied: a request may carry megabytes of path.
  if (path.size() > kMaxPathBytes) {
    throw WorkspaceError(Errno::kENAMETOOLONG,
                         "Path exceeds " + std::to_string(kMaxPathBytes) + " bytes");
  }
  if (path.find('\0') != std::string_view::npos) {
    throw WorkspaceError(Errno::kEINVAL, "Path contains a NUL byte");
  }
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
  std::vector<std::string_view> parts;
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
    if (seg.size() > kMaxPathSegmentBytes) {
      throw WorkspaceError(
          Errno::kENAMETOOLONG,
          "Path segment exceeds " + std::to_string(kMaxPathSegmentBytes) + " bytes");
    }
    parts.push_back(seg);
  }
  if (parts.empty() || parts.front() != "workspace") throw escapes();
  if (parts.size() - 1 > kMaxPathDepth) {
    throw WorkspaceError(Errno::kENAMETOOLONG,
                         "Path exceeds " + std::to_string(kMaxPathDepth) + " levels");
  }
  NormalizedPath out;
  out.absolute = kWorkspaceRoot;
  for (std::size_t i = 1; i < parts.size(); ++i) out.absolute.append("/").append(parts[i]);
  if (out.absolute.size() > kMaxPathBytes) {
    throw WorkspaceError(Errno::kENAMETOOLONG,
                         "Path exceeds " + std::to_string(kMaxPathBytes) + " bytes");
  }
  out.segments.assign(parts.begin() + 1, parts.end());
  return out;
}

}  // namespace sandbox

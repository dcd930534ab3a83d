#include "sandbox/files_api.h"

#include <sandbox/clock.h>
#include <sandbox/protocol.h>

#include "sandbox/error_reply.h"
#include "sandbox/mime_type.h"

namespace sandbox {
namespace {

std::string_view operation_of(std::string_view op) {
  if (op == "read") return "file.read";
  if (op == "write") return "file.write";
  if (op == "mkdir") return "directory.create";
  if (op == "delete") return "file.delete";
  if (op == "rename") return "file.rename";
  if (op == "move") return "file.move";
  if (op == "list") return "directory.list";
  return "file.stat";  // exists
}

std::string_view encoding_name(Encoding e) { return e == Encoding::kBase64 ? "base64" : "utf-8"; }

boost::json::object file_info(const ListEntry& entry, const std::string& listed,
                              const std::string& created_at) {
  const bool dir = entry.type == WorkspaceNode::Type::kDirectory;
  const std::string relative = entry.path.substr(listed.size() + 1);
  const auto slash = entry.path.rfind('/');
  return {{"name", entry.path.substr(slash + 1)},
          {"absolutePath", entry.path},
          {"relativePath", relative},
          {"type", dir ? "directory" : "file"},
          {"size", entry.size},
          {"modifiedAt", dir ? created_at : iso8601_ms(entry.updated_at)},
          {"mode", dir ? "drwxr-xr-x" : "-rw-r--r--"},
          {"permissions",
           boost::json::object{{"readable", true}, {"writable", true}, {"executable", dir}}}};
}

bool hidden(std::string_view relative) {
  std::size_t start = 0;
  while (start <= relative.size()) {
    const auto end = relative.find('/', start);
    const auto segment = relative.substr(start, end == std::string_view::npos ? end : end - start);
    if (segment.starts_with('.')) return true;
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return false;
}

// normalize_workspace_path for a request field: a path past the limits or holding a NUL byte is
// a malformed request (400 VALIDATION_FAILED), refused before anything walks the tree.
std::string request_path(const std::string& given, const std::string& operation,
                         std::int64_t now_ms) {
  try {
    return normalize_workspace_path(given).absolute;
  } catch (const WorkspaceError& e) {
    if (e.code() != Errno::kENAMETOOLONG && e.code() != Errno::kEINVAL) throw;
    throw ErrorReply(errno_error_response(e, {{"path", given}, {"operation", operation}}, now_ms,
                                          ErrorKind::kBadRequest));
  }
}

}  // namespace

bool files_op_mutates(const std::string& op) {
  return op == "write" || op == "mkdir" || op == "delete" || op == "rename" || op == "move";
}

boost::json::object run_files_op(Workspace& workspace, const FilesRequest& r,
                                 const std::string& created_at, std::int64_t now_ms) {
  const std::string operation(operation_of(r.op));
  try {
    const std::string path = request_path(r.path, operation, now_ms);
    boost::json::object out{{"success", true}, {"path", path}};
    if (r.op == "read") {
      const Encoding enc = r.encoding.value_or(Encoding::kUtf8);
      ReadResult read = workspace.read(path, enc);
      out["content"] = read.content;  // a json::value copies a std::string (no move)
      out["encoding"] = encoding_name(enc);
      out["isBinary"] = read.is_binary;
      out["mimeType"] = mime_type_for(path, read.is_binary);
      out["size"] = read.size;
    } else if (r.op == "write") {
      workspace.write(path, r.content, r.encoding.value_or(Encoding::kUtf8));
    } else if (r.op == "mkdir") {
      try {
        workspace.mkdir(path, r.recursive);
      } catch (const WorkspaceError& e) {
        if (e.code() == Errno::kEACCES || e.code() == Errno::kENOSPC) throw;
        throw ErrorReply(errno_error_response(e, {{"path", r.path}, {"operation", operation}},
                                              now_ms, ErrorKind::kFilesystemError));
      }
      out["recursive"] = r.recursive;
    } else if (r.op == "delete") {
      workspace.remove(path, r.recursive, r.force);
    } else if (r.op == "rename" || r.op == "move") {
      // decode_files_request guarantees it; a request built otherwise gets its 400 too.
      if (!r.new_path) throw ApiError(ErrorKind::kBadRequest, "newPath is required for " + r.op);
      const std::string to = request_path(*r.new_path, operation, now_ms);
      workspace.rename(path, to);
      out["newPath"] = to;
    } else if (r.op == "list") {
      boost::json::array files;
      for (const auto& entry : workspace.list(path, r.recursive)) {
        boost::json::object info = file_info(entry, path, created_at);
        if (!r.include_hidden && hidden(info["relativePath"].get_string())) continue;
        files.push_back(std::move(info));
      }
      const std::size_t count = files.size();
      out["files"] = std::move(files);
      out["count"] = count;
    } else {  // exists
      out["exists"] = workspace.exists(path);
    }
    out["timestamp"] = iso8601_ms(now_ms);
    return out;
  } catch (const WorkspaceError& e) {
    throw ErrorReply(errno_error_response(e, {{"path", r.path}, {"operation", operation}}, now_ms));
  }
}

}  // namespace sandbox

#include "sandbox/files_api.h"

#include <array>

#include <sandbox/clock.h>
#include <sandbox/protocol.h>

#include "sandbox/error_reply.h"
#include "sandbox/mime_type.h"

namespace sandbox {
namespace {

constexpr std::array<std::string_view, 8> kOps = {"read",   "write", "mkdir", "delete",
                                                  "rename", "move",  "list",  "exists"};

// JavaScript truthiness, as upstream reads the boolean flags.
bool truthy(const boost::json::value* v) {
  if (!v) return false;
  switch (v->kind()) {
    case boost::json::kind::null:
      return false;
    case boost::json::kind::bool_:
      return v->get_bool();
    case boost::json::kind::int64:
      return v->get_int64() != 0;
    case boost::json::kind::uint64:
      return v->get_uint64() != 0;
    case boost::json::kind::double_:
      return v->get_double() != 0 && v->get_double() == v->get_double();
    case boost::json::kind::string:
      return !v->get_string().empty();
    default:
      return true;
  }
}

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

FilesRequest parse_files_request(const boost::json::object& body) {
  FilesRequest r;
  const auto* op = body.if_contains("op");
  bool known = false;
  if (op && op->is_string()) {
    for (const auto k : kOps) known = known || op->get_string() == k;
  }
  if (!known) throw ApiError(ErrorKind::kBadRequest, "Unknown op");
  r.op = op->get_string();
  const auto* path = body.if_contains("path");
  if (!path || !path->is_string() || path->get_string().empty()) {
    throw ApiError(ErrorKind::kBadRequest, "path is required");
  }
  r.path = path->get_string();
  if (r.op == "rename" || r.op == "move") {
    const auto* np = body.if_contains("newPath");
    if (!np || !np->is_string() || np->get_string().empty()) {
      throw ApiError(ErrorKind::kBadRequest, "newPath is required for " + r.op);
    }
    r.new_path = std::string(np->get_string());
  }
  if (const auto* enc = body.if_contains("encoding")) {
    if (enc->is_string() && enc->get_string() == "utf-8") {
      r.encoding = Encoding::kUtf8;
    } else if (enc->is_string() && enc->get_string() == "base64") {
      r.encoding = Encoding::kBase64;
    } else {
      throw ApiError(ErrorKind::kBadRequest, "encoding must be utf-8 or base64");
    }
  }
  if (const auto* content = body.if_contains("content"); content && !content->is_null()) {
    if (!content->is_string()) throw ApiError(ErrorKind::kBadRequest, "content must be a string");
    r.content = content->get_string();
  }
  r.recursive = truthy(body.if_contains("recursive"));
  r.force = truthy(body.if_contains("force"));
  r.include_hidden = truthy(body.if_contains("includeHidden"));
  return r;
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
      // parse_files_request guarantees it; a request built otherwise gets its 400 too.
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

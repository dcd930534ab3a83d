// The sandbox files API, POST /files (docs/sandbox-api.md#files-api): request validation, the eight
// ops over the sandbox's Workspace, their response bodies, MIME types, FileInfo listings, and the
// errno -> ErrorResponse mapping with {path, operation} context.
//
// Not synchronized: the Sandbox actor calls it under its lock.
#pragma once

#include <optional>
#include <string>

#include <boost/json/object.hpp>

#include <sandbox/workspace.h>

namespace sandbox {

struct FilesRequest {
  std::string op;  // read write mkdir delete rename move list exists
  std::string path;
  std::optional<std::string> new_path;
  std::string content;  // write only; "" when absent
  std::optional<Encoding> encoding;
  bool recursive = false;
  bool force = false;
  bool include_hidden = false;
};

// docs/sandbox-api.md#files-api (F2), in order: "Unknown op", "path is required", "newPath is
// required for <op>", "encoding must be utf-8 or base64" (and "content must be a string"). Throws
// ApiError 400.
FilesRequest parse_files_request(const boost::json::object& body);

// Whether `op` changes the workspace (write, mkdir, delete, rename, move).
bool files_op_mutates(const std::string& op);

// Runs the op and returns the 200 body. `created_at` (ISO) is the sandbox's createdAt, used as
// directories' modifiedAt. Throws ErrorReply (error_reply.h) with errno_error_response's body
// for a workspace failure; the workspace is unchanged then.
boost::json::object run_files_op(Workspace& workspace, const FilesRequest& request,
                                 const std::string& created_at, std::int64_t now_ms);

}  // namespace sandbox

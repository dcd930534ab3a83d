// The sandbox files API, POST /files (docs/sandbox-api.md#files-api): the eight ops (the request
// is decoded by decode_files_request, protocol/files_request.h) over the sandbox's Workspace, their
// response bodies, MIME types, FileInfo listings, and the errno -> ErrorResponse mapping with
// {path, operation} context.
//
// Not synchronized: the Sandbox actor calls it under its lock.
#pragma once

#include <optional>
#include <string>

#include <boost/json/object.hpp>

#include <sandbox/workspace.h>

#include "protocol/files_request.h"

namespace sandbox {

// Whether `op` changes the workspace (write, mkdir, delete, rename, move).
bool files_op_mutates(const std::string& op);

// Runs the op and returns the 200 body. `created_at` (ISO) is the sandbox's createdAt, used as
// directories' modifiedAt. Throws ErrorReply (error_reply.h) with errno_error_response's body
// for a workspace failure; the workspace is unchanged then.
boost::json::object run_files_op(Workspace& workspace, const FilesRequest& request,
                                 const std::string& created_at, std::int64_t now_ms);

}  // namespace sandbox

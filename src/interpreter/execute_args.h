// Validation of execute-in-context arguments (docs/protocol.md#execute-arguments X3-X6) and the
// JSON body of the HTTP transport (docs/protocol.md#resync-handshake).
#pragma once

#include <sandbox/interpreter.h>

#include <string_view>
#include <vector>

namespace sandbox {

// Checks what the types cannot: code non-blank and at most 64 KiB, contextId non-empty.
// Throws ApiError.
void validate_execute_args(const InterpreterExecuteArgs& args);

// The body of POST /interpreters/:key/execute:
// {contextId, code, envVars, workspace: {dirs, manifest, files: [{path, data (base64),
// updatedAt}], disabled?}}.
struct HttpExecuteArgs {
  InterpreterExecuteArgs args;
  std::vector<SyncFile> files;
};

// Throws ApiError with the message of the first rule broken, in the order of
// docs/protocol.md#execute-arguments.
HttpExecuteArgs parse_http_execute_args(std::string_view body);

// The JSON form of the arguments (what a remote caller sends), files base64-encoded.
boost::json::object to_json(const InterpreterExecuteArgs& args,
                            const std::vector<WorkspaceFileEntry>& files);

}  // namespace sandbox

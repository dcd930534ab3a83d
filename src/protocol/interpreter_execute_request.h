// Decoder of the runtime's execute-in-context request (docs/protocol.md#execute-arguments;
// docs/errors.md kBadRequest for every refusal): the arguments' checks and the JSON body of POST
// /interpreters/:key/execute (docs/protocol.md#resync-handshake), shared by the runtime and its
// fuzz target.
#pragma once

#include <string_view>
#include <vector>

#include <sandbox/interpreter.h>

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
[[nodiscard]] HttpExecuteArgs parse_http_execute_args(std::string_view body);

}  // namespace sandbox

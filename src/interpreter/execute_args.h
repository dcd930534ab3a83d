// Validation of execute-in-context arguments (docs/protocol.md#execute-arguments X3-X6) and the
// JSON body of the HTTP transport (docs/protocol.md#resync-handshake).
#pragma once

#include <vector>

#include <sandbox/interpreter.h>

#include "protocol/interpreter_execute_request.h"

namespace sandbox {

// The JSON form of the arguments (what a remote caller sends), files base64-encoded.
boost::json::object to_json(const InterpreterExecuteArgs& args,
                            const std::vector<WorkspaceFileEntry>& files);

}  // namespace sandbox

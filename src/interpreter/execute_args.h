// Validation of execute-in-context arguments (`upstream-protocol.md` §5.3 steps 3-6) and the
// JSON body of the HTTP transport (§5.8).
#pragma once

#include <vector>

#include <sandbox/interpreter.h>

#include "protocol/interpreter_execute_request.h"

namespace sandbox {

// The JSON form of the arguments (what a remote caller sends), files base64-encoded.
boost::json::object to_json(const InterpreterExecuteArgs& args,
                            const std::vector<WorkspaceFileEntry>& files);

}  // namespace sandbox

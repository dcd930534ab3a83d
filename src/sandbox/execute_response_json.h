// Parsing what a runtime answers over HTTP to an execution in a context (the JSON of
// `to_json(InterpreterExecuteResponse, base64_files=true)`, docs/protocol.md#execute-response,
// docs/protocol.md#resync-handshake).
#pragma once

#include <boost/json/object.hpp>

#include <sandbox/interpreter.h>

namespace sandbox {

// Throws BindingError (binding.h) when a field the sandbox relies on is missing or malformed.
[[nodiscard]] InterpreterExecuteResponse execute_response_from_json(const boost::json::object& o);

}  // namespace sandbox

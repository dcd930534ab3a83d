// The MCP tools (docs/mcp.md#tools): list_languages, run_code, create_context, list_contexts,
// delete_context, read_file, write_file, list_files, delete_file. Each is a name, a description
// an agent can act on, a JSON Schema of its arguments, and a call that makes the requests of
// sandboxd's HTTP API (docs/sandbox-api.md) through the C++ client (<sandbox/client.h>) over a
// Backend; a result's structuredContent is sandboxd's answer as it came.
//
// Arguments are checked against the schema before anything is sent (InvalidParams: unknown
// tool, unknown argument, missing required argument, wrong JSON type). Everything else that goes
// wrong is a tool result with isError: true: a guest error (its name, message and traceback), an
// ErrorResponse of sandboxd (its code and message), a backend that throws or answers something
// that is not sandboxd's protocol (the client's message for it).
//
// Thread-safety: stateless; as thread-safe as the backend.
#pragma once

#include <stdexcept>
#include <string_view>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "mcp/mcp_server.h"

namespace sandbox::mcp {

// Arguments that do not fit the tool (JSON-RPC -32602).
class InvalidParams : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The `tools` array of tools/list: [{name, title, description, inputSchema}].
const boost::json::array& tool_definitions();

// tools/call: the CallToolResult {content: [{type: "text", text}], structuredContent?, isError}.
// Throws InvalidParams (nothing was sent then); never throws anything else.
boost::json::object call_tool(const Backend& backend, std::string_view name,
                              const boost::json::object& arguments);

}  // namespace sandbox::mcp

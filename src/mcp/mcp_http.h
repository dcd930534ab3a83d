// The Streamable HTTP transport of MCP (2025-06-18, docs/mcp.md#http) at sandboxd's /mcp,
// without sessions or server-sent events: each POST carries one JSON-RPC message and is answered
// on its own.
//
//   POST, a request            200 application/json, the JSON-RPC response
//   POST, a notification or a  202, no body
//     client response
//   POST, unreadable message   400 application/json, a JSON-RPC error with id null
//   any other method           405 (Allow: POST): no SSE stream is offered, no session to end
//
// Refused from the head, before the body is read (McpHeadCheck, as ErrorResponse bodies): an
// Origin header that is not a loopback origin when the server has no API keys (403: a web page
// must not reach an unauthenticated local server through DNS rebinding), an MCP-Protocol-Version
// header naming a version this server does not speak (400), a non-JSON content type (415).
//
// Thread-safety: free functions; as McpServer.
#pragma once

#include <optional>
#include <string>

#include <sandbox/errors.h>
#include <sandbox/http.h>

#include "mcp/mcp_server.h"

namespace sandbox::mcp {

// A request /mcp refuses from its head.
struct McpRefusal {
  ErrorKind kind;
  std::string message;
  std::string allow;  // the Allow header of a 405, else empty
};

// The head checks above. `authenticated`: the server requires API keys (then any Origin may
// call, since a page cannot know a key).
std::optional<McpRefusal> check_mcp_head(const HttpRequest& head, bool authenticated);

// Answers one POST whose head passed check_mcp_head.
HttpResponse handle_mcp_post(const McpServer& server, const HttpRequest& request);

}  // namespace sandbox::mcp

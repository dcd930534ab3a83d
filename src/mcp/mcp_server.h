// McpServer: the Model Context Protocol (version 2025-06-18) over sandboxd, transport-free. It
// takes one JSON-RPC message and returns the message to send back (docs/mcp.md). Both
// transports use it: sandboxd's POST /mcp (mcp_http.h) and `sandbox mcp` over stdio
// (mcp_stdio.h).
//
// Methods: initialize, ping, tools/list, tools/call (the tools of mcp_tools.h); notifications
// and responses from the client are accepted and ignored. Errors follow JSON-RPC 2.0:
//   -32700 parse error (not JSON, or nested deeper than kMaxMcpJsonDepth)
//   -32600 invalid request (not an object, a batch, jsonrpc != "2.0", a bad id or method)
//   -32601 unknown method
//   -32602 invalid params (params not an object, unknown tool, a missing or mistyped argument)
//   -32603 internal error (the backend answered something that is not sandboxd's protocol)
// Guest errors and sandboxd's request errors (a missing file, an unknown context, a bad sandbox
// id, an unreachable server) are tool results with isError: true, so an agent can read them.
//
// Hostile input: a message longer than kMaxMcpMessageBytes is refused by the transports before
// it is parsed; JSON nesting is capped at kMaxMcpJsonDepth; every string a tool passes on is
// bounded again by sandboxd's own limits.
//
// Thread-safety: handle() may be called from any number of threads at once if the backend may.
// The server keeps no session state (each HTTP POST stands alone).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <sandbox/http.h>
#include <sandbox/protocol.h>

namespace sandbox::mcp {

// The protocol version this server speaks, and the older ones it still answers in (the tools
// and their results are the same in each).
inline constexpr std::string_view kProtocolVersion = "2025-06-18";
inline constexpr std::string_view kOlderProtocolVersions[] = {"2025-03-26", "2024-11-05"};
// The largest JSON-RPC message either transport accepts: a write_file of the files API's
// largest body, with room for the envelope.
inline constexpr std::size_t kMaxMcpMessageBytes = kMaxFilesRequestBytes + 4096;
// The deepest JSON nesting of a message (boost::json's parser refuses deeper input).
inline constexpr std::size_t kMaxMcpJsonDepth = 32;

// JSON-RPC 2.0 error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

// Whether `version` is one this server answers in.
bool supported_protocol_version(std::string_view version);

// sandboxd's HTTP API as one function: (method, path, JSON body) -> the answer, exactly as the
// route would give it (ErrorResponse bodies included). sandboxd calls its own routes in process;
// `sandbox mcp` sends them to a server (mcp_http_backend.h). May throw; a throw becomes an
// isError tool result with the exception's message.
using Backend = std::function<HttpResponse(const std::string& method, const std::string& path,
                                           const std::string& body)>;

// What handle() made of one message.
struct McpReply {
  // The JSON-RPC response to send; nullopt for a notification or a client response.
  std::optional<std::string> body;
  // The message could not be read as a JSON-RPC message (parse error or invalid request): the
  // HTTP transport answers 400 with `body`.
  bool malformed = false;
};

class McpServer {
 public:
  // initialize's serverInfo names sandboxd at the kit's version (<sandbox/version.h>).
  explicit McpServer(Backend backend);

  // One message in, its reply out. Never throws (a backend failure is an isError result or a
  // -32603 error).
  McpReply handle(std::string_view message) const;

 private:
  Backend backend_;
};

}  // namespace sandbox::mcp

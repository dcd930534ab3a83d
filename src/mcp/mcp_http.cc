#include "mcp/mcp_http.h"

#include <algorithm>
#include <string_view>

#include "http/site_guard.h"
#include "protocol/execute_request.h"

namespace sandbox::mcp {

std::optional<McpRefusal> check_mcp_head(const HttpRequest& head, bool authenticated) {
  if (head.method != "POST") {
    return McpRefusal{ErrorKind::kMethodNotAllowed,
                      "Use POST: /mcp offers no server-sent event stream and no sessions", "POST"};
  }
  if (const auto origin = head.header("origin");
      origin && !authenticated && !is_loopback_origin(*origin)) {
    return McpRefusal{ErrorKind::kPermissionDenied,
                      "Origin not allowed: without API keys /mcp answers loopback origins only",
                      ""};
  }
  if (const auto version = head.header("mcp-protocol-version");
      version && !supported_protocol_version(*version)) {
    return McpRefusal{ErrorKind::kBadRequest,
                      "Unsupported MCP-Protocol-Version (this server speaks " +
                          std::string(kProtocolVersion) + ")",
                      ""};
  }
  if (!is_json_content_type(head.header("content-type").value_or(""))) {
    return McpRefusal{ErrorKind::kUnsupportedMediaType, "Content-Type must be application/json",
                      ""};
  }
  return std::nullopt;
}

HttpResponse handle_mcp_post(const McpServer& server, const HttpRequest& request) {
  McpReply reply = server.handle(request.body);
  if (!reply.body) {
    HttpResponse accepted;
    accepted.status = 202;
    return accepted;
  }
  return HttpResponse::json(reply.malformed ? 400 : 200, std::move(*reply.body));
}

}  // namespace sandbox::mcp

#include "mcp/mcp_http.h"

#include <boost/url/parse.hpp>

#include "protocol/execute_request.h"

namespace sandbox::mcp {
namespace {

// An Origin a local client (or a page served by this machine) sends: http(s) on a loopback host.
bool loopback_origin(const std::string& origin) {
  const auto url = boost::urls::parse_absolute_uri(origin);
  if (!url || (url->scheme() != "http" && url->scheme() != "https")) return false;
  const std::string host = url->host();
  return host == "localhost" || host == "127.0.0.1" || host == "[::1]";
}

}  // namespace

std::optional<McpRefusal> check_mcp_head(const HttpRequest& head, bool authenticated) {
  if (head.method != "POST") {
    return McpRefusal{ErrorKind::kMethodNotAllowed,
                      "Use POST: /mcp offers no server-sent event stream and no sessions", "POST"};
  }
  if (const auto origin = head.header("origin");
      origin && !authenticated && !loopback_origin(*origin)) {
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

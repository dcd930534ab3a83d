#include "mcp/mcp_http.h"

#include <algorithm>
#include <string_view>

#include "protocol/execute_request.h"

namespace sandbox::mcp {
namespace {

// An Origin a local client (or a page served by this machine) sends: http(s)://HOST[:PORT] with
// a loopback HOST. Parsed by hand and strictly: Boost.URL 1.81 reads the host of
// "http://127.0.0.1.attacker.example" as 127.0.0.1.
bool loopback_origin(std::string_view origin) {
  std::string_view rest;
  if (origin.starts_with("http://")) {
    rest = origin.substr(7);
  } else if (origin.starts_with("https://")) {
    rest = origin.substr(8);
  } else {
    return false;
  }
  std::size_t host_end = rest.find(':');
  if (rest.starts_with('[')) {
    host_end = rest.find(']');
    if (host_end == std::string_view::npos) return false;
    ++host_end;
  }
  const std::string_view host = rest.substr(0, host_end);
  const std::string_view port =
      host_end == std::string_view::npos ? std::string_view() : rest.substr(host_end);
  if (!port.empty() &&
      (port.size() < 2 || port.size() > 6 || port[0] != ':' ||
       !std::all_of(port.begin() + 1, port.end(), [](char c) { return c >= '0' && c <= '9'; }))) {
    return false;
  }
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

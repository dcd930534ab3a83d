#include "mcp/mcp_http_backend.h"

#include <memory>
#include <mutex>

#include "client/client_support.h"
#include "client/http_client.h"

namespace sandbox::mcp {

Backend http_backend(const std::string& server_url, const std::string& api_key) {
  static_cast<void>(parse_http_url(server_url));  // throws std::invalid_argument
  struct Connection {
    Connection(const std::string& url, client_detail::Headers h)
        : client(url), headers(std::move(h)) {}
    std::mutex mu;
    HttpClient client;
    client_detail::Headers headers;
  };
  auto connection = std::make_shared<Connection>(server_url, client_detail::auth_headers(api_key));
  return [connection](const std::string& method, const std::string& path, const std::string& body) {
    std::lock_guard lock(connection->mu);
    if (body.empty()) return connection->client.request(method, path, {}, connection->headers);
    return connection->client.post_json(path, body, connection->headers);
  };
}

}  // namespace sandbox::mcp

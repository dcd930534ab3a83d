// A small synchronous HTTP/1.1 client (Boost.Beast) for the C++ client library, the CLI, remote
// bindings and tests. One HttpClient keeps one keep-alive connection to one origin and
// reconnects when the server closed it.
//
// Thread-safety: an HttpClient is used by one thread at a time.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sandbox/http.h>

namespace sandbox {

// A transport failure: the server could not be reached, or the connection broke mid-request.
class TransportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An http:// URL split into its parts.
struct ParsedUrl {
  std::string host;
  std::string port;  // "80" when absent
  std::string path;  // starts with '/'; includes the query if any
};

// Throws std::invalid_argument for anything but http://HOST[:PORT][/PATH].
[[nodiscard]] ParsedUrl parse_http_url(const std::string& url);

class HttpClient {
 public:
  // `base_url` is http://HOST[:PORT][/PREFIX]; request paths are appended to PREFIX.
  explicit HttpClient(const std::string& base_url,
                      std::chrono::milliseconds timeout = std::chrono::seconds(120));
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends one request and returns the response (any status). Throws TransportError.
  HttpResponse request(const std::string& method, const std::string& path,
                       const std::string& body = {},
                       const std::vector<std::pair<std::string, std::string>>& headers = {});

  // Same as request() with a JSON body and content-type application/json.
  HttpResponse post_json(const std::string& path, const std::string& json,
                         const std::vector<std::pair<std::string, std::string>>& headers = {});

  // Same as request(), for an answer that may be an event stream: when the response's
  // content-type is text/event-stream, its body is handed to `on_body` piece by piece as it
  // arrives (the returned body is then empty; the timeout applies to each wait for a piece).
  // Any other response is read whole, as request() does.
  HttpResponse request_streaming(const std::string& method, const std::string& path,
                                 const std::string& body,
                                 const std::vector<std::pair<std::string, std::string>>& headers,
                                 const std::function<void(std::string_view)>& on_body);

  void set_timeout(std::chrono::milliseconds timeout);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sandbox

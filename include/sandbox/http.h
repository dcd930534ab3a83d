// Minimal HTTP request/response values and the handler interface every server here implements.
//
// A handler sees a request twice: `on_head` with the method, target and headers only (before the
// body is read), which lets it refuse early (415, 413 from content-length) and choose the body
// cap for this route; then `handle` with the whole body. The HTTP server (runtime.h's serve(),
// sandboxd) calls `handle` on a worker thread, never on an I/O thread, so a handler may block.
//
// Thread-safety: a handler's methods may be called from several threads at once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sandbox {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string target;  // path and query, as received
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  // The first header named `name` (case-insensitive), or nullopt.
  std::optional<std::string> header(std::string_view name) const;
  // The target without its query string.
  std::string_view path() const;
  // The Content-Length header as a number; nullopt when absent or not a plain decimal number.
  std::optional<std::uint64_t> content_length() const;
};

struct HttpResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  // A JSON body with content-type application/json and cache-control: no-store.
  static HttpResponse json(int status, std::string body);
  // A plain-text body (content-type text/plain; charset=utf-8).
  static HttpResponse text(int status, std::string body);
  std::optional<std::string> header(std::string_view name) const;
};

// What a handler decides from the request head.
struct HeadDecision {
  // When set, answer with this response without reading the body (the connection is closed
  // afterwards if a body was announced).
  std::optional<HttpResponse> early_response;
  // The largest body to read; a longer body is answered by `too_large` (or a plain 413).
  std::uint64_t body_limit = 0;
  std::optional<HttpResponse> too_large;
};

class HttpHandler {
 public:
  virtual ~HttpHandler() = default;
  virtual HeadDecision on_head(const HttpRequest& head) = 0;
  virtual HttpResponse handle(HttpRequest request) = 0;
};

// Options of the HTTP server.
struct ServeOptions {
  std::string listen = "127.0.0.1:8787";  // HOST:PORT; port 0 picks a free port
  int io_threads = 2;
  int worker_threads = 16;
  // Stack size of worker threads: guest code compiled with wasm2c runs on it, so this is the
  // guest's native stack budget.
  std::size_t worker_stack_bytes = 16u << 20;
  // Stop gracefully on SIGINT/SIGTERM (finish in-flight requests, then return from run()).
  bool handle_signals = false;
  // Idle keep-alive connections are closed after this many seconds.
  int keep_alive_seconds = 60;
};

// An HTTP/1.1 server (keep-alive, several I/O threads, handlers on worker threads) for one
// handler. The constructor binds the listener (throwing std::runtime_error when it cannot); the
// handler must outlive the server.
class HttpServer {
 public:
  HttpServer(HttpHandler& handler, ServeOptions options);
  ~HttpServer();  // stops the server if it is running
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The bound port (the actual one when options.listen asked for port 0).
  std::uint16_t port() const;
  // Serves on background threads and returns at once.
  void start();
  // Serves until stop() (or a signal, with handle_signals); returns when in-flight requests are
  // answered.
  void run();
  // Stops accepting, lets in-flight requests finish, closes idle connections. Idempotent.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sandbox

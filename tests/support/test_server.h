// Test helper: serves an HttpHandler on 127.0.0.1 port 0 for the life of the object.
#pragma once

#include <string>

#include <sandbox/http.h>

namespace sandbox::test {

class TestServer {
 public:
  explicit TestServer(HttpHandler& handler, int worker_threads = 4)
      : server_(handler,
                ServeOptions{
                    .listen = "127.0.0.1:0", .io_threads = 2, .worker_threads = worker_threads}) {
    server_.start();
  }
  std::uint16_t port() const { return server_.port(); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port()); }
  void stop() { server_.stop(); }

 private:
  HttpServer server_;
};

}  // namespace sandbox::test

// Fuzz target: the HTTP request reader (src/http/server.cc: Beast's parser with the project's
// header limit, the head/body split with each route's body cap, to_request, 100-continue,
// keep-alive) and sandboxd's routing of heads and requests (SandboxdHandler::on_head and
// handle, including a runtime's routes under /runtimes/CALC/). A real HttpServer on loopback;
// each input is written as raw bytes on a fresh connection, whose write side is then shut, and
// every response is read back until the server closes the connection.
//
// Checked beyond "no crash": every response parses as HTTP/1.1, and none is a 5xx (hostile
// bytes must get a client error) but the protocol's own workspace 500s (fuzz_check.h). Sandboxes
// created by one input are still there for the next (state is bounded by the workspace limits;
// replay of a single input is deterministic).
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include <arpa/inet.h>
#include <boost/beast/http.hpp>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <sandbox/clock.h>
#include <sandbox/runtime.h>

#include "calc_engine.h"
#include "fuzz_check.h"
#include "interpreter/over_store.h"
#include "sandbox/local_binding.h"
#include "sandbox/sandbox_service.h"
#include "server/sandboxd_handler.h"
#include "storage/sqlite/sqlite_stores.h"

namespace {

using namespace sandbox;
namespace http = boost::beast::http;

// Longer than libFuzzer's -timeout=10 (run_fuzzers.sh), which reports a stall with the stacks of
// every thread; this bound only ends a stalled replay outside libFuzzer.
constexpr int kReadTimeoutSeconds = 30;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_http_requests: %s\n", what.c_str());
  std::abort();
}

struct World {
  World() {
    bindings.add(make_local_binding(
        "CALC",
        define_interpreter_runtime(
            engines::make_calc_engine(), storage.interpreters(),
            RuntimeOptions{.clock = &clock, .idle_ttl_ms = 0, .background_expiry = false})));
    service = std::make_unique<SandboxService>(storage.sandboxes(), clock, bindings);
    // No API keys, so the site guard (http/site_guard.h) checks every request; the seeds name
    // the host "x", allowed here so that they reach the routes behind it.
    handler =
        std::make_unique<SandboxdHandler>(*service, clock, SandboxdOptions{.allowed_hosts = {"x"}});
    server = std::make_unique<HttpServer>(*handler, ServeOptions{.listen = "127.0.0.1:0",
                                                                 .io_threads = 1,
                                                                 .worker_threads = 2,
                                                                 .worker_stack_bytes = 1u << 20,
                                                                 .keep_alive_seconds = 5});
    server->start();
  }

  ManualClock clock;
  SqliteStorage storage{":memory:"};
  BindingSet bindings;
  std::unique_ptr<SandboxService> service;
  std::unique_ptr<SandboxdHandler> handler;
  std::unique_ptr<HttpServer> server;
};

World& world() {
  static World* w = new World();  // never destroyed: libFuzzer may exit from any point
  return *w;
}

std::string exchange(std::uint16_t port, const std::uint8_t* data, std::size_t size) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) fail("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{kReadTimeoutSeconds, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  // An interrupted connect goes on in the background: retrying reports EISCONN once it is done.
  while (rc != 0 && (errno == EINTR || errno == EALREADY)) {
    rc = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  }
  if (rc != 0 && errno != EISCONN) fail(std::string("connect failed: ") + std::strerror(errno));
  std::size_t sent = 0;
  while (sent < size) {
    const ssize_t n = ::send(fd, data + sent, size - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the server may answer and close before reading everything
    sent += static_cast<std::size_t>(n);
  }
  ::shutdown(fd, SHUT_WR);
  std::string received;
  char buf[16384];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    // libFuzzer's -timeout alarm (SIGALRM, every few seconds) interrupts a recv that has a
    // receive timeout even under SA_RESTART (signal(7)): that is not a stall, so read again.
    // This was the "stall" of fuzz_http_requests: a spurious EINTR, not a lost answer.
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == ECONNRESET) break;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      fail("no answer within " + std::to_string(kReadTimeoutSeconds) + " s");
    }
    if (n < 0) fail(std::string("recv failed: ") + std::strerror(errno));
    if (n == 0) break;
    received.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return received;
}

void check_responses(std::string_view received) {
  while (!received.empty()) {
    http::response_parser<http::string_body> parser;
    parser.eager(true);
    parser.body_limit(64u << 20);
    boost::beast::error_code ec;
    const std::size_t used = parser.put(boost::asio::buffer(received.data(), received.size()), ec);
    if (ec == http::error::need_more && !parser.is_header_done()) {
      fail("truncated response head: " + std::string(received.substr(0, 200)));
    }
    if (ec && ec != http::error::need_more) {
      fail("unparsable response (" + ec.message() + "): " + std::string(received.substr(0, 200)));
    }
    std::size_t total = used;
    if (!parser.is_done()) {  // a body without content-length ends at EOF
      parser.put_eof(ec);
      if (ec) fail("truncated response: " + std::string(received.substr(0, 200)));
      total = received.size();
    }
    const unsigned status = parser.get().result_int();
    if (status >= 500 && !fuzz::is_workspace_500(static_cast<int>(status), parser.get().body())) {
      fail("answered " + std::to_string(status) + ": " + parser.get().body());
    }
    received.remove_prefix(total);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  World& w = world();
  check_responses(exchange(w.server->port(), data, size));
  return 0;
}

// How HttpServer writes a handler's response (src/http/server.cc, worker_write.h): the worker
// that made it sends it without blocking, and the connection's coroutine writes what the socket
// did not take (and every response over kWorkerWriteBytes). Over real loopback sockets, with a
// raw client so the test controls the receive buffer and when it reads.
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <sandbox/http.h>

namespace sandbox {
namespace {

// GET /size/<n>: a body of n bytes, a pattern a truncated or shuffled copy cannot match.
class SizeHandler final : public HttpHandler {
 public:
  HeadDecision on_head(const HttpRequest&) override { return HeadDecision{}; }
  HttpResponse handle(HttpRequest request) override {
    const std::size_t n = std::stoul(std::string(request.path().substr(6)));
    return HttpResponse::text(200, body_of(n));
  }
  static std::string body_of(std::size_t n) {
    std::string body(n, '\0');
    for (std::size_t i = 0; i < n; ++i) body[i] = static_cast<char>('a' + (i * 7 + i / 251) % 26);
    return body;
  }
};

// A blocking client connection; `receive_buffer` (bytes) is set before connecting.
class RawConnection {
 public:
  RawConnection(std::uint16_t port, std::optional<int> receive_buffer = std::nullopt) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (receive_buffer) {
      ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &*receive_buffer, sizeof *receive_buffer);
    }
    timeval timeout{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~RawConnection() { ::close(fd_); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return connected_; }
  void send_all(const std::string& data) {
    std::size_t sent = 0;
    while (sent < data.size()) {
      const ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      ASSERT_GT(n, 0);
      sent += static_cast<std::size_t>(n);
    }
  }
  // One response: its head and its body (by Content-Length). Empty head: the connection ended.
  struct Response {
    std::string head;
    std::string body;
  };
  Response read_response() {
    Response r;
    std::size_t end = std::string::npos;
    while ((end = buffered_.find("\r\n\r\n")) == std::string::npos) {
      if (!fill()) return r;
    }
    r.head = buffered_.substr(0, end + 4);
    buffered_.erase(0, end + 4);
    const auto at = r.head.find("Content-Length: ");
    const std::size_t length = at == std::string::npos ? 0 : std::stoul(r.head.substr(at + 16));
    while (buffered_.size() < length) {
      if (!fill()) break;
    }
    r.body = buffered_.substr(0, length);
    buffered_.erase(0, r.body.size());
    return r;
  }
  // True when the server closed the connection (read returns 0) with nothing more sent.
  bool closed_by_server() { return buffered_.empty() && !fill(); }

 private:
  bool fill() {
    char chunk[65536];
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    buffered_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }
  int fd_ = -1;
  bool connected_ = false;
  std::string buffered_;
};

std::string get(const std::string& path, const std::string& extra = "") {
  return "GET " + path + " HTTP/1.1\r\nHost: test\r\n" + extra + "\r\n";
}

class ResponseWrite : public ::testing::Test {
 protected:
  ResponseWrite() : server_(handler_, ServeOptions{.listen = "127.0.0.1:0"}) { server_.start(); }
  SizeHandler handler_;
  HttpServer server_;
};

TEST_F(ResponseWrite, ResponsesOfEverySizeArriveWholeOnOneConnection) {
  RawConnection c(server_.port());
  ASSERT_TRUE(c.connected());
  // Around the worker's limit (64 KiB) and far past it, which the coroutine writes.
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{65536},
                              std::size_t{65537}, std::size_t{3} << 20}) {
    c.send_all(get("/size/" + std::to_string(n)));
    const auto r = c.read_response();
    ASSERT_TRUE(r.head.starts_with("HTTP/1.1 200")) << n << ": " << r.head;
    EXPECT_EQ(r.head.find("Connection: close"), std::string::npos) << r.head;
    ASSERT_EQ(r.body.size(), n);
    EXPECT_EQ(r.body, SizeHandler::body_of(n)) << n;
  }
}

// A client that sends many requests and reads nothing for a while: the socket's buffers fill,
// the worker's send takes part of a response at once, and the connection's coroutine writes the
// rest once the client reads; every response arrives whole and in order.
TEST_F(ResponseWrite, ASlowReaderGetsEveryResponseWhole) {
  RawConnection c(server_.port(), 4096);
  ASSERT_TRUE(c.connected());
  constexpr int kRequests = 64;  // 3.8 MB of responses: more than loopback buffers hold
  std::string requests;
  for (int i = 0; i < kRequests; ++i) requests += get("/size/" + std::to_string(60000 + i));
  c.send_all(requests);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  for (int i = 0; i < kRequests; ++i) {
    const auto r = c.read_response();
    ASSERT_TRUE(r.head.starts_with("HTTP/1.1 200")) << i << ": " << r.head;
    ASSERT_EQ(r.body, SizeHandler::body_of(60000 + static_cast<std::size_t>(i))) << i;
  }
}

TEST_F(ResponseWrite, ConnectionCloseAndHttp10AreAnsweredAndClosed) {
  {
    RawConnection c(server_.port());
    c.send_all(get("/size/10", "Connection: close\r\n"));
    const auto r = c.read_response();
    EXPECT_NE(r.head.find("Connection: close"), std::string::npos) << r.head;
    EXPECT_EQ(r.body, SizeHandler::body_of(10));
    EXPECT_TRUE(c.closed_by_server());
  }
  {
    RawConnection c(server_.port());
    c.send_all("GET /size/20 HTTP/1.0\r\n\r\n");
    const auto r = c.read_response();
    EXPECT_TRUE(r.head.starts_with("HTTP/1.0 200")) << r.head;
    EXPECT_EQ(r.body, SizeHandler::body_of(20));
    EXPECT_TRUE(c.closed_by_server());
  }
}

// Pipelined requests (sent before the first answer) are answered in order.
TEST_F(ResponseWrite, PipelinedRequestsAreAnsweredInOrder) {
  RawConnection c(server_.port());
  c.send_all(get("/size/5") + get("/size/70000") + get("/size/7"));
  for (const std::size_t n : {5, 70000, 7}) {
    const auto r = c.read_response();
    ASSERT_TRUE(r.head.starts_with("HTTP/1.1 200")) << r.head;
    EXPECT_EQ(r.body, SizeHandler::body_of(n));
  }
}

}  // namespace
}  // namespace sandbox

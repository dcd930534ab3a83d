// Admission control of HttpServer (include/sandbox/http.h) over real loopback HTTP: the bounded
// worker queue, serial keys that wait without a worker, the long-running share of the workers,
// the connection bound, and the accept loop's back-off when out of descriptors.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <boost/json/parse.hpp>
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sandbox/http.h>

#include "client/http_client.h"

namespace sandbox {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// GET /block/<key>: waits until released (serial key <key> unless "-", long-running when the
// query is ?long); GET /quick: answers at once. Counts the handlers running at once.
class GateHandler final : public HttpHandler {
 public:
  HeadDecision on_head(const HttpRequest& head) override {
    HeadDecision d;
    d.body_limit = 1024;
    const std::string_view path = head.path();
    if (path.starts_with("/block/")) {
      const std::string key(path.substr(7));
      if (key != "-") d.serial_key = key;
      d.long_running = head.target.ends_with("?long");
    }
    return d;
  }

  HttpResponse handle(HttpRequest request) override {
    if (!request.path().starts_with("/block/")) return HttpResponse::text(200, "quick");
    std::unique_lock lock(mu_);
    const int order = ++started_;
    ++running_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return open_; });
    --running_;
    return HttpResponse::text(200, std::to_string(order));
  }

  void release() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  // Waits (up to 10 s) until `n` handlers have started.
  bool wait_started(int n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return started_ >= n; });
  }
  int running() {
    std::lock_guard lock(mu_);
    return running_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  int started_ = 0;
  int running_ = 0;
};

class Admission : public ::testing::Test {
 protected:
  void serve(ServeOptions options) {
    options.listen = "127.0.0.1:0";
    server_ = std::make_unique<HttpServer>(handler_, options);
    server_->start();
    url_ = "http://127.0.0.1:" + std::to_string(server_->port());
  }
  ~Admission() override {
    handler_.release();
    for (auto& f : pending_) f.wait();
    server_.reset();
  }
  // Sends GET `path` on its own connection in the background.
  std::shared_future<HttpResponse> send(const std::string& path) {
    auto f = std::async(std::launch::async, [url = url_, path] {
               return HttpClient(url, std::chrono::seconds(30)).request("GET", path);
             }).share();
    pending_.push_back(f);
    return f;
  }
  HttpResponse get(const std::string& path, milliseconds timeout = milliseconds(5000)) {
    return HttpClient(url_, timeout).request("GET", path);
  }

  GateHandler handler_;
  std::unique_ptr<HttpServer> server_;
  std::string url_;
  std::vector<std::shared_future<HttpResponse>> pending_;
};

void expect_busy_envelope(const HttpResponse& r, int status, const std::string& limit) {
  EXPECT_EQ(r.status, status) << r.body;
  EXPECT_EQ(r.header("retry-after").value_or(""), "1");
  const auto body = boost::json::parse(r.body).as_object();
  EXPECT_EQ(body.at("httpStatus"), status);
  EXPECT_EQ(body.at("code"), "INTERNAL_ERROR");
  EXPECT_EQ(body.at("context").at("limit").as_string(), limit);
  EXPECT_TRUE(body.contains("timestamp"));
}

TEST_F(Admission, PastTheQueueBoundRequestsGet503WithRetryAfter) {
  serve({.worker_threads = 1, .max_queued_requests = 1, .reserved_workers = 0});
  auto running = send("/block/-");
  ASSERT_TRUE(handler_.wait_started(1));
  auto queued = send("/block/-");
  std::this_thread::sleep_for(milliseconds(200));  // let it reach the queue
  const auto start = steady_clock::now();
  expect_busy_envelope(get("/block/-"), 503, "max_queued_requests");
  EXPECT_LT(steady_clock::now() - start, std::chrono::seconds(3));
  handler_.release();
  EXPECT_EQ(running.get().status, 200);
  EXPECT_EQ(queued.get().status, 200);
  EXPECT_EQ(get("/quick").status, 200);
}

TEST_F(Admission, RequestsForABusyKeyWaitWithoutAWorker) {
  serve({.worker_threads = 2, .max_waiting_per_key = 3, .reserved_workers = 0});
  std::vector<std::shared_future<HttpResponse>> on_a;
  on_a.push_back(send("/block/a"));
  ASSERT_TRUE(handler_.wait_started(1));
  for (int i = 0; i < 3; ++i) {
    on_a.push_back(send("/block/a"));
    std::this_thread::sleep_for(milliseconds(50));  // arrival order
  }
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(handler_.running(), 1) << "requests waiting for key a took a worker";
  // The second worker is free for another key, at once.
  auto on_b = send("/block/b");
  ASSERT_TRUE(handler_.wait_started(2));
  expect_busy_envelope(get("/block/a"), 429, "max_waiting_per_key");
  handler_.release();
  // Key a's requests ran one at a time, in arrival order (b ran second overall).
  std::vector<int> orders;
  for (auto& f : on_a) {
    const HttpResponse r = f.get();
    ASSERT_EQ(r.status, 200) << r.body;
    orders.push_back(std::stoi(r.body));
  }
  EXPECT_EQ(orders, (std::vector<int>{1, 3, 4, 5}));
  EXPECT_EQ(on_b.get().body, "2");
}

TEST_F(Admission, LongRunningRequestsLeaveReservedWorkersForShortOnes) {
  serve({.worker_threads = 3, .reserved_workers = 1});
  for (int i = 0; i < 4; ++i) send("/block/-?long");
  ASSERT_TRUE(handler_.wait_started(2));
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(handler_.running(), 2);
  const auto start = steady_clock::now();
  EXPECT_EQ(get("/quick").status, 200);
  EXPECT_LT(steady_clock::now() - start, std::chrono::seconds(2));
  handler_.release();
  for (auto& f : pending_) EXPECT_EQ(f.get().status, 200);
}

// A raw connection to 127.0.0.1:port (the fd, or -1).
int connect_raw(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Sends a GET on `fd` and reads until the server closes (or 5 s pass).
std::string exchange_until_close(int fd, const std::string& path) {
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) < 0) return "";
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

TEST_F(Admission, ConnectionsPastTheBoundAre503AndClosed) {
  serve({.worker_threads = 2, .max_connections = 2});
  HttpClient first(url_), second(url_);
  ASSERT_EQ(first.request("GET", "/quick").status, 200);  // two open keep-alive connections
  ASSERT_EQ(second.request("GET", "/quick").status, 200);
  const int third = connect_raw(server_->port());
  ASSERT_GE(third, 0);
  const std::string answer = exchange_until_close(third, "/quick");
  ::close(third);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 503")) << answer;
  EXPECT_NE(answer.find("max_connections"), std::string::npos) << answer;
  std::string lower = answer;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  EXPECT_NE(lower.find("retry-after: 1\r\n"), std::string::npos) << answer;
}

double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// UBSan's first-level cache of checked (vptr, type) pairs (128 slots), present only in builds
// with -fsanitize=vptr.
std::uintptr_t* ubsan_vptr_type_cache() {
  return static_cast<std::uintptr_t*>(::dlsym(RTLD_DEFAULT, "__ubsan_vptr_type_cache"));
}

// Regression: a failed accept (EMFILE) was retried at once, so a pending connection the
// process had no descriptor for kept an I/O thread spinning at full speed.
//
// Under UBSan, a virtual call whose (vptr, type) pair was never checked before needs two
// descriptors (the runtime probes the vtable's readability through a pipe) and reports "invalid
// vptr" when the process has none left: a false report (docs/fuzzing.md#sanitizer-limits,
// reproduced there in a dozen lines). Pairs once checked stay in a second-level table forever,
// so two whole connections are served first (Connection: close, read to the end), each through
// accept, reactor, timers, strand and teardown. On the one I/O thread the first connection's
// teardown runs before the second is accepted; the second's may still be running in the window,
// but it makes exactly the first's calls. (A keep-alive connection closed by the client, torn
// down in the window, met a pair nothing had checked yet: 1 run in 100 under load.) Clearing the
// first-level cache then makes every check in the window go through the second table: a
// virtual call the warm-up did not reach fails every run, not one run in a few.
TEST_F(Admission, AcceptBacksOffWhenOutOfDescriptors) {
  serve({.io_threads = 1, .worker_threads = 1});
  for (int i = 0; i < 2; ++i) {
    const int warm = connect_raw(server_->port());
    ASSERT_GE(warm, 0);
    const std::string answer = exchange_until_close(warm, "/quick");
    ::close(warm);
    ASSERT_TRUE(answer.starts_with("HTTP/1.1 200")) << answer;
  }
  if (std::uintptr_t* cache = ubsan_vptr_type_cache(); cache != nullptr) {
    std::fill(cache, cache + 128, 0);
  }
  const int client = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(client, 0);
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  // Take every descriptor left under a lowered soft limit.
  rlimit low = saved;
  low.rlim_cur = std::min<rlim_t>(saved.rlim_cur, 512);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  std::vector<int> filler;
  for (;;) {
    const int fd = ::open("/dev/null", O_RDONLY);
    if (fd < 0) break;
    filler.push_back(fd);
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(server_->port());
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool connected = ::connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  const double before = cpu_seconds();
  std::this_thread::sleep_for(milliseconds(1000));
  const double spent = cpu_seconds() - before;
  for (int fd : filler) ::close(fd);
  ::setrlimit(RLIMIT_NOFILE, &saved);
  ASSERT_TRUE(connected);
  EXPECT_LT(spent, 0.15) << "the accept loop spun on EMFILE";
  // Descriptors are back: the pending connection is accepted and served.
  const std::string answer = exchange_until_close(client, "/quick");
  ::close(client);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 200")) << answer;
}

}  // namespace
}  // namespace sandbox

// HttpServer: Boost.Beast over Asio with C++20 coroutines.
//
// One coroutine per connection, each on its own strand of a multi-threaded io_context. A request
// is read in two steps: the head, which the handler inspects (early refusals, the body cap of
// the route), then the body under that cap, so an oversized body is refused before it is read in
// full. The handler's handle() runs on the WorkerPool; the connection's coroutine waits for it
// without holding an I/O thread.
//
// Admission (include/sandbox/http.h): a connection past max_connections gets a 503 from a small
// coroutine and is closed; a request is handed to the pool with try_submit (503 when the queue
// is full), or, with a serial key that is busy, parked in that key's queue (no worker held) and
// submitted when the key's running request finishes.
//
// Streaming (HeadDecision::may_stream): the handler gets a ResponseStream (include/sandbox/http.h)
// whose pieces it queues from its worker thread without blocking; a pump coroutine on the
// connection's strand writes them as HTTP chunks while the handler runs, and the handler's
// returned body ends the stream. A failed write marks the stream dead: later pieces are dropped
// and the connection closes once the handler is done, so the handler always runs to its end.
//
// Graceful stop: the acceptor closes, idle connections are closed, a connection that is handling
// a request finishes writing its response and then closes; stop() returns when every connection
// coroutine has ended.
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <unordered_map>

#include <boost/asio.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/serialize.hpp>
#include <sys/socket.h>

#include <sandbox/clock.h>
#include <sandbox/http.h>
#include <sandbox/protocol.h>

#include "http/worker_pool.h"

namespace sandbox {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;

constexpr std::size_t kHeaderLimit = std::size_t{16} * 1024;
// A refused connection: how long its 503 may take to write, and to drain what the client sent
// (closing with unread input would reset the connection before the client reads the answer).
constexpr auto kRefusalWriteTimeout = std::chrono::seconds(5);
constexpr auto kRefusalDrainTimeout = std::chrono::seconds(1);

std::pair<std::string, std::uint16_t> split_listen(const std::string& listen) {
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos)
    throw std::runtime_error("listen address must be HOST:PORT: " + listen);
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  const std::string port_text = listen.substr(colon + 1);
  int port = -1;
  try {
    std::size_t used = 0;
    port = std::stoi(port_text, &used);
    if (used != port_text.size()) port = -1;
  } catch (const std::exception&) {
    port = -1;
  }
  if (port < 0 || port > 65535)
    throw std::runtime_error("invalid port in listen address: " + listen);
  if (host.empty()) host = "0.0.0.0";
  return {host, static_cast<std::uint16_t>(port)};
}

HttpRequest to_request(const http::request<http::string_body>& r, bool with_body) {
  HttpRequest out;
  out.method = std::string(r.method_string());
  out.target = std::string(r.target());
  for (const auto& f : r)
    out.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
  if (with_body) out.body = r.body();
  return out;
}

http::response<http::string_body> to_beast(const HttpResponse& r, unsigned version,
                                           bool keep_alive) {
  http::response<http::string_body> res{static_cast<http::status>(r.status), version};
  for (const auto& [k, v] : r.headers) res.set(k, v);
  res.body() = r.body;
  res.keep_alive(keep_alive);
  res.prepare_payload();
  return res;
}

// How long one write of a response (or of one piece of a streamed one) may take.
constexpr auto kWriteTimeout = std::chrono::seconds(30);

// Responses up to this size are written by the worker that made them (see sent_by_worker).
constexpr std::size_t kWorkerWriteBytes = std::size_t{64} * 1024;

// `res` as it goes on the wire.
std::string serialize(http::response<http::string_body>& res) {
  std::string out;
  http::response_serializer<http::string_body> serializer{res};
  beast::error_code ec;
  while (!serializer.is_done() && !ec) {
    serializer.next(ec, [&](beast::error_code&, const auto& buffers) {
      std::size_t n = 0;
      for (const auto b : beast::buffers_range_ref(buffers)) {
        out.append(static_cast<const char*>(b.data()), b.size());
        n += b.size();
      }
      serializer.consume(n);
    });
  }
  if (ec) throw std::runtime_error("serializing a response: " + ec.message());
  return out;
}

// What a worker did with a response it wrote itself.
struct WorkerWrite {
  bool attempted = false;   // false: the connection's coroutine writes the response
  bool failed = false;      // the connection is broken: close it
  bool keep_alive = false;  // what the response told the client
  std::string rest;         // what the socket did not take at once: the coroutine writes it
};

// The ResponseStream of one request: the handler's worker thread queues, the connection's pump
// coroutine (on the strand of `signal`) takes and writes. `signal` is a timer that never expires
// by itself: cancelling it (on the strand) wakes the pump.
class ChunkedStream final : public ResponseStream,
                            public std::enable_shared_from_this<ChunkedStream> {
 public:
  explicit ChunkedStream(const asio::any_io_executor& strand) : signal_(strand) {
    signal_.expires_at(asio::steady_timer::time_point::max());
  }

  void open(int status, std::vector<std::pair<std::string, std::string>> headers) override {
    {
      std::lock_guard lock(mu_);
      if (opened_) return;
      opened_ = true;
      status_ = status;
      headers_ = std::move(headers);
    }
    wake();
  }

  bool is_open() const override {
    std::lock_guard lock(mu_);
    return opened_;
  }

  bool write(std::string data) override {
    {
      std::lock_guard lock(mu_);
      if (dead_) return false;
      if (!opened_ || data.empty()) return true;
      pending_ += data;
    }
    wake();
    return true;
  }

  // The handler returned: the pump ends once everything queued is written.
  void finish() {
    {
      std::lock_guard lock(mu_);
      finished_ = true;
    }
    wake();
  }

  void mark_dead() {
    std::lock_guard lock(mu_);
    dead_ = true;
    pending_.clear();
  }

  bool dead() const {
    std::lock_guard lock(mu_);
    return dead_;
  }

  struct Step {
    bool head = false;  // the head is due
    int status = 200;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string data;
    bool finished = false;
  };

  // What the pump has to do now (on the strand).
  Step take() {
    std::lock_guard lock(mu_);
    Step step;
    if (opened_ && !head_taken_) {
      head_taken_ = true;
      step.head = true;
      step.status = status_;
      step.headers = headers_;
    }
    step.data.swap(pending_);
    step.finished = finished_;
    return step;
  }

  asio::steady_timer& signal() { return signal_; }

 private:
  // The posted wake holds the stream: it may run after the session let go of it.
  void wake() {
    asio::post(signal_.get_executor(), [self = shared_from_this()] { self->signal_.cancel(); });
  }

  mutable std::mutex mu_;
  asio::steady_timer signal_;
  bool opened_ = false;
  bool head_taken_ = false;
  bool finished_ = false;
  bool dead_ = false;
  int status_ = 200;
  std::vector<std::pair<std::string, std::string>> headers_;
  std::string pending_;
};

}  // namespace

struct HttpServer::Impl {
  struct Connection {
    explicit Connection(tcp::socket s) : stream(std::move(s)) {}
    beast::tcp_stream stream;
    bool busy = false;  // between reading a head and writing its response
  };

  Impl(HttpHandler& h, ServeOptions o)
      : handler(h),
        options(std::move(o)),
        ioc(options.io_threads),
        acceptor(ioc),
        signals(ioc),
        pool(options.worker_threads, options.worker_stack_bytes, options.max_queued_requests,
             options.worker_threads - options.reserved_workers) {
    const auto [host, port] = split_listen(options.listen);
    boost::system::error_code ec;
    const auto address = asio::ip::make_address(host, ec);
    tcp::endpoint endpoint;
    if (ec) {
      tcp::resolver resolver(ioc);
      auto results = resolver.resolve(host, std::to_string(port), ec);
      if (ec || results.empty()) throw std::runtime_error("cannot resolve listen host " + host);
      endpoint = *results.begin();
    } else {
      endpoint = tcp::endpoint(address, port);
    }
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) throw std::runtime_error("cannot listen on " + options.listen + ": " + ec.message());
    bound_port = acceptor.local_endpoint().port();
  }

  asio::awaitable<void> accept_loop() {
    // One timer for every back-off of this loop, made before the first accept.
    asio::steady_timer pause(acceptor.get_executor());
    for (;;) {
      auto strand = asio::make_strand(ioc);
      auto [ec, socket] =
          co_await acceptor.async_accept(strand, asio::as_tuple(asio::use_awaitable));
      if (ec) {
        if (stopping.load()) co_return;
        if (ec == asio::error::connection_aborted) continue;  // the client gave up: next
        // Out of descriptors (EMFILE, ENFILE) or buffers: retrying at once would spin on the
        // same error; pause so that connections can finish and free theirs.
        pause.expires_after(std::chrono::milliseconds(kAcceptBackoffMs));
        co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
        continue;
      }
      socket.set_option(tcp::no_delay(true), ec);
      bool over = false;
      {
        std::lock_guard lock(mu);
        if (stopping.load()) continue;
        over = connections.size() >= options.max_connections;
      }
      if (over) {
        // Refusals are bounded too: past as many again, the connection is just closed.
        if (refusing.load() >= options.max_connections) continue;  // the socket closes here
        ++refusing;
        asio::co_spawn(strand, refuse(std::move(socket)),
                       [this](const std::exception_ptr&) { --refusing; });
        continue;
      }
      auto conn = std::make_shared<Connection>(std::move(socket));
      {
        std::lock_guard lock(mu);
        connections.insert(conn);
        ++live_sessions;
      }
      asio::co_spawn(strand, session(conn), [this, conn](const std::exception_ptr&) {
        std::lock_guard lock(mu);
        connections.erase(conn);
        if (--live_sessions == 0) cv.notify_all();
      });
    }
  }

  // Answers a connection past max_connections with 503 and closes it.
  asio::awaitable<void> refuse(tcp::socket socket) {
    beast::tcp_stream stream(std::move(socket));
    auto res = to_beast(
        busy_response(ErrorKind::kOverloaded,
                      "The server has too many open connections; retry later", "max_connections"),
        11, false);
    stream.expires_after(kRefusalWriteTimeout);
    auto [ec, n] = co_await http::async_write(stream, res, asio::as_tuple(asio::use_awaitable));
    (void)n;
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    if (!ec) {
      std::array<char, 4096> sink;
      stream.expires_after(kRefusalDrainTimeout);
      for (;;) {
        auto [read_ec, got] = co_await stream.async_read_some(asio::buffer(sink),
                                                              asio::as_tuple(asio::use_awaitable));
        (void)got;
        if (read_ec) break;
      }
    }
    stream.socket().close(ignored);
  }

  // Hands `job` to the pool, or parks it behind its serial key; a refusal when a bound is hit.
  std::optional<HttpResponse> admit(std::unique_ptr<WorkerPool::Job> job, const std::string& key,
                                    bool long_running) {
    const auto pool_full = [] {
      return busy_response(ErrorKind::kOverloaded,
                           "The server is busy: too many requests wait for a worker; retry later",
                           "max_queued_requests");
    };
    if (key.empty()) {
      if (pool.try_submit(std::move(job), long_running)) return std::nullopt;
      return pool_full();
    }
    std::lock_guard lock(keys_mu);
    const auto [it, fresh] = keys.try_emplace(key);
    KeyQueue& queue = it->second;
    if (!queue.active) {
      if (!pool.try_submit(std::move(job), long_running)) {
        keys.erase(it);
        return pool_full();
      }
      queue.active = true;
      return std::nullopt;
    }
    if (queue.waiting.size() >= options.max_waiting_per_key) {
      return busy_response(ErrorKind::kTooManyRequests,
                           "Too many requests are waiting for " + key + "; retry later",
                           "max_waiting_per_key");
    }
    queue.waiting.push_back(Parked{std::move(job), long_running});
    return std::nullopt;
  }

  // The running request of `key` finished: the next one parked behind it goes to the pool.
  void key_done(const std::string& key) {
    std::lock_guard lock(keys_mu);
    const auto it = keys.find(key);
    if (it == keys.end()) return;
    if (it->second.waiting.empty()) {
      keys.erase(it);
      return;
    }
    Parked next = std::move(it->second.waiting.front());
    it->second.waiting.pop_front();
    pool.submit(std::move(next.job), next.long_running);  // admitted when it was parked
  }

  // The response of a request the coroutine of `c` waits for, written by the worker that made
  // it, without waking the I/O thread first: the client has its answer one thread hand-off
  // sooner (a stateless Lua `1+1` took 0.19 ms p50, of which the hand-back was 0.03-0.05). The
  // coroutine has no operation on the socket while it waits, so the worker may use it; it sends
  // without blocking, and what the socket does not take at once (or a response over
  // kWorkerWriteBytes, or an error the coroutine turns into a 500) is left to the coroutine.
  WorkerWrite sent_by_worker(Connection& c, const HttpResponse& r, unsigned version,
                             bool keep_alive) {
    if (r.body.size() > kWorkerWriteBytes) return {};
    auto res = to_beast(r, version, keep_alive && !stopping.load());
    WorkerWrite out{.attempted = true, .keep_alive = res.keep_alive()};
    std::string bytes;
    try {
      bytes = serialize(res);
    } catch (const std::exception&) {
      return {};
    }
    const int fd = c.stream.socket().native_handle();
    std::size_t sent = 0;
    while (sent < bytes.size()) {
      const ssize_t n =
          ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0) {
        sent += static_cast<std::size_t>(n);
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        break;
      } else {
        out.failed = true;
        return out;
      }
    }
    out.rest = bytes.substr(sent);
    return out;
  }

  // The connection a worker writes its response to, with the request's HTTP version and
  // keep-alive (see sent_by_worker).
  struct Direct {
    Connection* connection = nullptr;
    unsigned version = 11;
    bool keep_alive = false;
  };

  // Runs handler.handle(request) on the worker pool (admission permitting); the awaiting
  // coroutine resumes on `ex` with the response or the refusal. With a connection in `direct`,
  // the worker writes the response itself (sent_by_worker).
  // (Not a coroutine itself: the request travels in a shared_ptr, which sidesteps gcc 12's
  // trouble with non-trivial coroutine parameters captured into nested lambdas.)
  template <class Executor>
  auto run_handler(const std::shared_ptr<HttpRequest>& request, Executor ex, std::string key,
                   bool long_running, Direct direct) {
    return asio::async_initiate<decltype(asio::use_awaitable),
                                void(std::exception_ptr, HttpResponse, WorkerWrite)>(
        [this, ex, request, key = std::move(key), long_running, direct](auto completion) {
          auto shared_completion = std::make_shared<decltype(completion)>(std::move(completion));
          auto job = WorkerPool::make_job([this, ex, request, shared_completion, key, direct] {
            auto response = std::make_shared<HttpResponse>();
            std::exception_ptr error;
            try {
              *response = handler.handle(std::move(*request));
            } catch (...) {
              error = std::current_exception();
            }
            auto written = std::make_shared<WorkerWrite>();
            if (!error && direct.connection != nullptr) {
              *written =
                  sent_by_worker(*direct.connection, *response, direct.version, direct.keep_alive);
            }
            asio::post(ex, [shared_completion, error, response, written] {
              (*shared_completion)(error, std::move(*response), std::move(*written));
            });
            if (!key.empty()) key_done(key);
          });
          if (auto refused = admit(std::move(job), key, long_running)) {
            auto response = std::make_shared<HttpResponse>(std::move(*refused));
            asio::post(ex, [shared_completion, response] {
              (*shared_completion)(nullptr, std::move(*response), WorkerWrite{});
            });
          }
        },
        asio::use_awaitable);
  }

  asio::awaitable<void> write(Connection& c, const HttpResponse& r, unsigned version,
                              bool keep_alive) {
    auto res = to_beast(r, version, keep_alive);
    c.stream.expires_after(kWriteTimeout);
    co_await http::async_write(c.stream, res, asio::as_tuple(asio::use_awaitable));
  }

  // run_handler for a request that may stream: never throws, and tells the pump when the
  // handler is done.
  asio::awaitable<HttpResponse> handle_streamed(std::shared_ptr<HttpRequest> request,
                                                asio::any_io_executor ex, std::string key,
                                                bool long_running,
                                                std::shared_ptr<ChunkedStream> stream) {
    HttpResponse response;
    try {
      std::tie(response, std::ignore) =
          co_await run_handler(request, ex, std::move(key), long_running, Direct{});
    } catch (const std::exception&) {
      response = HttpResponse::text(500, "Internal server error");
    }
    stream->finish();
    co_return response;
  }

  // Writes `data` as one chunk; a failure marks the stream dead.
  asio::awaitable<void> write_chunk(Connection& c, ChunkedStream& stream, const std::string& data) {
    c.stream.expires_after(kWriteTimeout);
    auto [ec, n] = co_await asio::async_write(c.stream, http::make_chunk(asio::buffer(data)),
                                              asio::as_tuple(asio::use_awaitable));
    (void)n;
    if (ec) stream.mark_dead();
  }

  // Writes what the handler queues on `stream` (the head once opened, then the pieces, all that
  // is pending at each wake in one chunk) until the handler has returned and nothing is left.
  asio::awaitable<void> pump(Connection& c, std::shared_ptr<ChunkedStream> stream, unsigned version,
                             bool keep_alive) {
    for (;;) {
      ChunkedStream::Step step = stream->take();
      const bool idle = !step.head && step.data.empty();
      if (step.head && !stream->dead()) {
        http::response<http::empty_body> head{static_cast<http::status>(step.status), version};
        for (const auto& [k, v] : step.headers) head.set(k, v);
        head.chunked(true);
        head.keep_alive(keep_alive);
        http::response_serializer<http::empty_body> serializer{head};
        c.stream.expires_after(kWriteTimeout);
        auto [ec, n] = co_await http::async_write_header(c.stream, serializer,
                                                         asio::as_tuple(asio::use_awaitable));
        (void)n;
        if (ec) stream->mark_dead();
      }
      if (!step.data.empty() && !stream->dead()) co_await write_chunk(c, *stream, step.data);
      if (idle) {
        if (step.finished) co_return;
        auto [ec] = co_await stream->signal().async_wait(asio::as_tuple(asio::use_awaitable));
        (void)ec;  // cancelled: something to do
      }
    }
  }

  asio::awaitable<void> session(std::shared_ptr<Connection> conn) {
    auto& c = *conn;
    beast::flat_buffer buffer;
    const auto ex = co_await asio::this_coro::executor;
    for (;;) {
      if (stopping.load()) break;
      http::request_parser<http::string_body> parser;
      parser.header_limit(kHeaderLimit);
      // Beast checks content-length against the body limit while parsing the head; the real
      // limit of the route is set once the handler has seen the head.
      parser.body_limit(std::numeric_limits<std::uint64_t>::max());
      c.stream.expires_after(std::chrono::seconds(options.keep_alive_seconds));
      auto [ec, n] = co_await http::async_read_header(c.stream, buffer, parser,
                                                      asio::as_tuple(asio::use_awaitable));
      (void)n;
      if (ec) {
        if (ec == http::error::header_limit) {
          co_await write(c, HttpResponse::text(431, "Request header fields too large"), 11, false);
        } else if (ec != http::error::end_of_stream && ec != asio::error::operation_aborted &&
                   ec != beast::error::timeout && ec != asio::error::eof &&
                   ec != asio::error::connection_reset && ec != asio::error::bad_descriptor) {
          co_await write(c, HttpResponse::text(400, "Bad request"), 11, false);
        }
        break;
      }
      c.busy = true;
      const auto& head_msg = parser.get();
      const unsigned version = head_msg.version();
      const bool has_body = parser.content_length().value_or(0) > 0 || parser.chunked();
      HeadDecision decision = handler.on_head(to_request(head_msg, false));
      if (decision.early_response) {
        const bool keep = head_msg.keep_alive() && !has_body && !stopping.load();
        co_await write(c, *decision.early_response, version, keep);
        c.busy = false;
        if (!keep) break;
        continue;
      }
      if (has_body && beast::iequals(head_msg[http::field::expect], "100-continue")) {
        http::response<http::empty_body> cont{http::status::continue_, version};
        co_await http::async_write(c.stream, cont, asio::as_tuple(asio::use_awaitable));
      }
      parser.body_limit(decision.body_limit);
      c.stream.expires_after(std::chrono::seconds(60));
      auto [body_ec, body_n] =
          co_await http::async_read(c.stream, buffer, parser, asio::as_tuple(asio::use_awaitable));
      (void)body_n;
      if (body_ec) {
        if (body_ec == http::error::body_limit) {
          const HttpResponse too_large = decision.too_large
                                             ? *decision.too_large
                                             : HttpResponse::text(413, "Request too large");
          co_await write(c, too_large, version, false);
        }
        break;
      }
      const bool keep_alive = parser.get().keep_alive();
      HttpResponse response;
      WorkerWrite written;  // what the worker sent of `response` itself
      auto request = std::make_shared<HttpRequest>(to_request(parser.get(), true));
      if (decision.may_stream) {
        auto stream = std::make_shared<ChunkedStream>(ex);
        request->stream = stream.get();
        const bool keep = keep_alive && !stopping.load();
        using namespace asio::experimental::awaitable_operators;
        response = co_await (
            handle_streamed(request, ex, decision.serial_key, decision.long_running, stream) &&
            pump(c, stream, version, keep));
        if (stream->is_open()) {
          // The handler's body is the last piece; then the terminating chunk.
          if (!response.body.empty() && !stream->dead()) {
            co_await write_chunk(c, *stream, response.body);
          }
          if (!stream->dead()) {
            c.stream.expires_after(kWriteTimeout);
            auto [ec, n] = co_await asio::async_write(c.stream, http::make_chunk_last(),
                                                      asio::as_tuple(asio::use_awaitable));
            (void)n;
            if (ec) stream->mark_dead();
          }
          c.busy = false;
          if (!keep || stream->dead()) break;
          continue;
        }
      } else {
        try {
          std::tie(response, written) =
              co_await run_handler(request, ex, decision.serial_key, decision.long_running,
                                   Direct{&c, version, keep_alive});
        } catch (const std::exception& e) {
          response = HttpResponse::text(500, "Internal server error");
        }
      }
      bool keep = keep_alive && !stopping.load();
      if (!written.attempted) {
        co_await write(c, response, version, keep);
      } else if (written.failed) {
        keep = false;
      } else {
        // The worker decided keep-alive when it wrote; what it could not send follows.
        keep = written.keep_alive;
        if (!written.rest.empty()) {
          c.stream.expires_after(kWriteTimeout);
          auto [ec, n] = co_await asio::async_write(c.stream, asio::buffer(written.rest),
                                                    asio::as_tuple(asio::use_awaitable));
          (void)n;
          if (ec) keep = false;
        }
      }
      c.busy = false;
      if (!keep) break;
    }
    beast::error_code ignored;
    c.stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    c.stream.socket().close(ignored);
  }

  void start() {
    asio::co_spawn(accept_strand, accept_loop(), asio::detached);
    if (options.handle_signals) {
      signals.add(SIGINT);
      signals.add(SIGTERM);
      signals.async_wait([this](const boost::system::error_code& ec, int) {
        if (!ec) request_stop();
      });
    }
    for (int i = 0; i < options.io_threads; ++i) threads.emplace_back([this] { ioc.run(); });
  }

  // Begins the graceful stop; safe from any thread, including signal handlers' completions.
  void request_stop() {
    bool expected = false;
    if (!stopping.compare_exchange_strong(expected, true)) return;
    // On the accept loop's strand: the acceptor is not safe for concurrent use, and with two
    // I/O threads a close here raced the loop's next async_accept (found by ThreadSanitizer).
    asio::post(accept_strand, [this] {
      boost::system::error_code ignored;
      acceptor.close(ignored);
      signals.cancel(ignored);
    });
    std::lock_guard lock(mu);
    for (const auto& conn : connections) {
      asio::post(conn->stream.get_executor(), [conn] {
        boost::system::error_code ignored;
        if (!conn->busy) conn->stream.socket().cancel(ignored);
      });
    }
    cv.notify_all();
  }

  // Blocks until stop was requested and every connection has ended, then joins the threads.
  void wait() {
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return stopping.load() && live_sessions == 0; });
    }
    std::lock_guard join_lock(join_mu);
    work_guard.reset();
    ioc.stop();
    for (auto& t : threads) {
      if (t.joinable()) t.join();
    }
    threads.clear();
  }

  HttpHandler& handler;
  ServeOptions options;
  asio::io_context ioc;
  asio::executor_work_guard<asio::io_context::executor_type> work_guard{ioc.get_executor()};
  tcp::acceptor acceptor;
  // Serializes the accept loop and the acceptor's close (request_stop).
  asio::strand<asio::io_context::executor_type> accept_strand{asio::make_strand(ioc)};
  asio::signal_set signals;
  // Serial keys with a request on the pool, and the requests parked behind it.
  struct Parked {
    std::unique_ptr<WorkerPool::Job> job;
    bool long_running = false;
  };
  struct KeyQueue {
    bool active = false;
    std::deque<Parked> waiting;
  };
  std::mutex keys_mu;
  std::unordered_map<std::string, KeyQueue> keys;  // guarded by keys_mu
  // Declared after `keys`, so destroyed (its threads joined) first: a job finishing during the
  // destruction still reaches key_done() on a live map (found by ThreadSanitizer).
  WorkerPool pool;
  std::vector<std::thread> threads;
  std::uint16_t bound_port = 0;
  std::atomic<bool> stopping{false};
  std::mutex mu;
  std::mutex join_mu;
  std::condition_variable cv;
  std::set<std::shared_ptr<Connection>> connections;
  int live_sessions = 0;
  std::atomic<std::size_t> refusing{0};  // refuse() coroutines running
  bool started = false;
};

HttpServer::HttpServer(HttpHandler& handler, ServeOptions options)
    : impl_(std::make_unique<Impl>(handler, std::move(options))) {}

HttpServer::~HttpServer() { stop(); }

std::uint16_t HttpServer::port() const { return impl_->bound_port; }

void HttpServer::start() {
  if (impl_->started) return;
  impl_->started = true;
  impl_->start();
}

void HttpServer::run() {
  start();
  impl_->wait();
}

void HttpServer::stop() {
  if (!impl_->started) return;
  impl_->request_stop();
  impl_->wait();
}

}  // namespace sandbox

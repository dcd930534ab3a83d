// HttpServer: Boost.Beast over Asio with C++20 coroutines; this file is the connection loop
// (accept, refuse, session). The rest of the server is in its own files: the listen address
// (listen_address.h), the admission of requests to the worker pool (admission.h), the chunked
// response stream (chunked_stream.h), the responses a worker writes itself (worker_write.h) and
// the conversions to and from Beast's messages (beast_messages.h).
//
// One coroutine per connection, each on its own strand of a multi-threaded io_context. A request
// is read in two steps: the head, which the handler inspects (early refusals, the body cap of
// the route), then the body under that cap, so an oversized body is refused before it is read in
// full. The handler's handle() runs on the WorkerPool; the connection's coroutine waits for it
// without holding an I/O thread.
//
// Admission (include/sandbox/http.h): a connection past max_connections gets a 503 from a small
// coroutine and is closed; a request is handed to the Admission (admission.h): to the pool with
// try_submit (503 when the queue is full), or, with a serial key that is busy, parked in that
// key's queue (no worker held) and submitted when the key's running request finishes.
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
#include <chrono>
#include <condition_variable>
#include <limits>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <tuple>

#include <boost/asio.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <sandbox/http.h>
#include <sandbox/metrics.h>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "http/admission.h"
#include "http/beast_messages.h"
#include "http/chunked_stream.h"
#include "http/listen_address.h"
#include "http/metrics_http.h"
#include "http/worker_pool.h"
#include "http/worker_write.h"

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

// How long one write of a response (or of one piece of a streamed one) may take.
constexpr auto kWriteTimeout = std::chrono::seconds(30);

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
        admission(std::make_unique<WorkerPool>(options.worker_threads, options.worker_stack_bytes,
                                               options.max_queued_requests,
                                               options.worker_threads - options.reserved_workers),
                  options.max_waiting_per_key) {
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
    if (options.metrics != nullptr) register_metrics(*options.metrics);
  }

  // The sandbox_http_* families of the connection loop (docs/sandbox-api.md#metrics); the
  // admission registers its own.
  void register_metrics(MetricsRegistry& registry) {
    refused_connections = &refusal_counter(registry, "max_connections");
    admission.register_metrics(registry);
    metric_callbacks.push_back(
        registry.gauge_callback("sandbox_http_open_connections",
                                "Open HTTP connections (refused ones not included)", {}, [this] {
                                  MutexLock lock(mu);
                                  return static_cast<double>(connections.size());
                                }));
  }

  static void count(Counter* counter) {
    if (counter != nullptr) counter->add();
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
        MutexLock lock(mu);
        if (stopping.load()) continue;
        over = connections.size() >= options.max_connections;
      }
      if (over) {
        count(refused_connections);
        // Refusals are bounded too: past as many again, the connection is just closed.
        if (refusing.load() >= options.max_connections) continue;  // the socket closes here
        ++refusing;
        asio::co_spawn(strand, refuse(std::move(socket)),
                       [this](const std::exception_ptr&) { --refusing; });
        continue;
      }
      auto conn = std::make_shared<Connection>(std::move(socket));
      {
        MutexLock lock(mu);
        connections.insert(conn);
        ++live_sessions;
      }
      asio::co_spawn(strand, session(conn), [this, conn](const std::exception_ptr&) {
        MutexLock lock(mu);
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

  // The connection a worker writes its response to, with the request's HTTP version and
  // keep-alive (send_by_worker, worker_write.h).
  struct Direct {
    Connection* connection = nullptr;
    unsigned version = 11;
    bool keep_alive = false;
  };

  // Runs handler.handle(request) on the worker pool (admission permitting); the awaiting
  // coroutine resumes on `ex` with the response or the refusal. With a connection in `direct`,
  // the worker writes the response itself (send_by_worker).
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
                  send_by_worker(direct.connection->stream.socket().native_handle(), *response,
                                 direct.version, direct.keep_alive && !stopping.load());
            }
            asio::post(ex, [shared_completion, error, response, written] {
              (*shared_completion)(error, std::move(*response), std::move(*written));
            });
            if (!key.empty()) admission.key_done(key);
          });
          if (auto refused = admission.admit(std::move(job), key, long_running)) {
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
    MutexLock lock(mu);
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
      MutexLock lock(mu);
      while (!(stopping.load() && live_sessions == 0)) lock.wait(cv);
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
  // The worker pool, and the serial keys' queues in front of it.
  Admission admission;
  std::vector<std::thread> threads;
  std::uint16_t bound_port = 0;
  std::atomic<bool> stopping{false};
  Mutex mu;
  std::mutex join_mu;
  std::condition_variable cv;  // with mu: live_sessions reached 0, or stopping was set
  std::set<std::shared_ptr<Connection>> connections SANDBOX_GUARDED_BY(mu);
  int live_sessions SANDBOX_GUARDED_BY(mu) = 0;
  std::atomic<std::size_t> refusing{0};  // refuse() coroutines running
  bool started = false;
  // With options.metrics: the refusal counter, and the callbacks that read the members above.
  // Declared last, so unregistered first when the server is destroyed.
  Counter* refused_connections = nullptr;
  std::vector<MetricsRegistry::Callback> metric_callbacks;
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

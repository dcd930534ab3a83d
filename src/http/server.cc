// HttpServer: Boost.Beast over Asio with C++20 coroutines.
//
// One coroutine per connection, each on its own strand of a multi-threaded io_context. A request
// is read in two steps: the head, which the handler inspects (early refusals, the body cap of
// the route), then the body under that cap, so an oversized body is refused before it is read in
// full. The handler's handle() runs on the WorkerPool; the connection's coroutine waits for it
// without holding an I/O thread.
//
// Graceful stop: the acceptor closes, idle connections are closed, a connection that is handling
// a request finishes writing its response and then closes; stop() returns when every connection
// coroutine has ended.
#include <sandbox/http.h>

#include <atomic>
#include <limits>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include <boost/asio.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "http/worker_pool.h"

namespace sandbox {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;

constexpr std::size_t kHeaderLimit = 16 * 1024;

std::pair<std::string, std::uint16_t> split_listen(const std::string& listen) {
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error("listen address must be HOST:PORT: " + listen);
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const std::string port_text = listen.substr(colon + 1);
  int port = -1;
  try {
    std::size_t used = 0;
    port = std::stoi(port_text, &used);
    if (used != port_text.size()) port = -1;
  } catch (const std::exception&) {
    port = -1;
  }
  if (port < 0 || port > 65535) throw std::runtime_error("invalid port in listen address: " + listen);
  if (host.empty()) host = "0.0.0.0";
  return {host, static_cast<std::uint16_t>(port)};
}

HttpRequest to_request(const http::request<http::string_body>& r, bool with_body) {
  HttpRequest out;
  out.method = std::string(r.method_string());
  out.target = std::string(r.target());
  for (const auto& f : r) out.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
  if (with_body) out.body = r.body();
  return out;
}

http::response<http::string_body> to_beast(const HttpResponse& r, unsigned version, bool keep_alive) {
  http::response<http::string_body> res{static_cast<http::status>(r.status), version};
  for (const auto& [k, v] : r.headers) res.set(k, v);
  res.body() = r.body;
  res.keep_alive(keep_alive);
  res.prepare_payload();
  return res;
}

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
        pool(options.worker_threads, options.worker_stack_bytes) {
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
    for (;;) {
      auto strand = asio::make_strand(ioc);
      auto [ec, socket] =
          co_await acceptor.async_accept(strand, asio::as_tuple(asio::use_awaitable));
      if (ec) {
        if (stopping.load()) co_return;
        continue;  // transient accept failure (EMFILE, ...): keep serving
      }
      socket.set_option(tcp::no_delay(true), ec);
      auto conn = std::make_shared<Connection>(std::move(socket));
      {
        std::lock_guard lock(mu);
        if (stopping.load()) continue;
        connections.insert(conn);
        ++live_sessions;
      }
      asio::co_spawn(strand, session(conn), [this, conn](std::exception_ptr) {
        std::lock_guard lock(mu);
        connections.erase(conn);
        if (--live_sessions == 0) cv.notify_all();
      });
    }
  }

  // Runs handler.handle(request) on the worker pool; the awaiting coroutine resumes on `ex`.
  // (Not a coroutine itself: the request travels in a shared_ptr, which sidesteps gcc 12's
  // trouble with non-trivial coroutine parameters captured into nested lambdas.)
  template <class Executor>
  auto run_handler(std::shared_ptr<HttpRequest> request, Executor ex) {
    return asio::async_initiate<decltype(asio::use_awaitable),
                                void(std::exception_ptr, HttpResponse)>(
        [this, ex, request](auto completion) {
          auto shared_completion =
              std::make_shared<decltype(completion)>(std::move(completion));
          pool.submit_fn([this, ex, request, shared_completion] {
            auto response = std::make_shared<HttpResponse>();
            std::exception_ptr error;
            try {
              *response = handler.handle(std::move(*request));
            } catch (...) {
              error = std::current_exception();
            }
            asio::post(ex, [shared_completion, error, response] {
              (*shared_completion)(error, std::move(*response));
            });
          });
        },
        asio::use_awaitable);
  }

  asio::awaitable<void> write(Connection& c, const HttpResponse& r, unsigned version, bool keep_alive) {
    auto res = to_beast(r, version, keep_alive);
    c.stream.expires_after(std::chrono::seconds(30));
    co_await http::async_write(c.stream, res, asio::as_tuple(asio::use_awaitable));
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
          const HttpResponse too_large =
              decision.too_large ? *decision.too_large : HttpResponse::text(413, "Request too large");
          co_await write(c, too_large, version, false);
        }
        break;
      }
      const bool keep_alive = parser.get().keep_alive();
      HttpResponse response;
      try {
        response = co_await run_handler(
            std::make_shared<HttpRequest>(to_request(parser.get(), true)), ex);
      } catch (const std::exception& e) {
        response = HttpResponse::text(500, "Internal server error");
      }
      const bool keep = keep_alive && !stopping.load();
      co_await write(c, response, version, keep);
      c.busy = false;
      if (!keep) break;
    }
    beast::error_code ignored;
    c.stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    c.stream.socket().close(ignored);
  }

  void start() {
    asio::co_spawn(ioc, accept_loop(), asio::detached);
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
    asio::post(acceptor.get_executor(), [this] {
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
  asio::signal_set signals;
  WorkerPool pool;
  std::vector<std::thread> threads;
  std::uint16_t bound_port = 0;
  std::atomic<bool> stopping{false};
  std::mutex mu;
  std::mutex join_mu;
  std::condition_variable cv;
  std::set<std::shared_ptr<Connection>> connections;
  int live_sessions = 0;
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

// Minimal HTTP request/response values and the handler interface every server here implements.
//
// A handler sees a request twice: `on_head` with the method, target and headers only (before the
// body is read), which lets it refuse early (415, 413 from content-length) and choose the body
// cap for this route; then `handle` with the whole body. The HTTP server (runtime.h's serve(),
// sandboxd) calls `handle` on a worker thread, never on an I/O thread, so a handler may block.
//
// Admission control (each limit a ServeOptions field; sandboxd has a flag for each). Every
// refusal below is an ErrorResponse envelope (code INTERNAL_ERROR, context {limit,
// retryAfterSeconds}) with `Retry-After: 1`, and costs no worker thread:
//   1. connections: past `max_connections` open connections a new one is accepted, answered
//      503 and closed (the listener keeps accepting, so the client hears why);
//   2. the worker queue: past `max_queued_requests` requests waiting for a worker thread, 503;
//   3. serial keys: requests whose HeadDecision carries the same `serial_key` (sandboxd: one
//      sandbox) reach a worker one at a time in arrival order; the others wait without a
//      worker, at most `max_waiting_per_key` of them (past it, 429);
//   4. long-running requests (HeadDecision::long_running: guest code) hold at most
//      worker_threads - reserved_workers workers at once, so short requests always find one;
//   5. accept failures (EMFILE, ENFILE, ...) pause the accept loop for kAcceptBackoffMs instead
//      of spinning.
// All are checked when a request's head has been read (1: when the connection is accepted).
//
// Thread-safety: a handler's methods may be called from several threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sandbox/errors.h>

namespace sandbox {

class MetricsRegistry;  // <sandbox/metrics.h>

// A response sent in pieces while the handler runs (chunked transfer encoding): how a handler
// streams (docs/protocol.md#streaming-output). The server offers one to handle() through
// HttpRequest::stream when the route's HeadDecision asked for it; the handler may use it or
// answer normally.
//
// Once open() was called, the response handle() returns is not sent as such: its body (if any)
// becomes the last piece of the stream, its status and headers are ignored, and the stream
// ends. Writes never block the handler: pieces are queued and written by the connection as fast
// as the client reads, so the handler must bound what it writes (the execute routes write at
// most the output limit plus the result). A client that went away makes write() return false
// and drops the data; the handler carries on (an execution is never cut by its caller leaving).
//
// Thread-safety: used by the one thread that runs handle(); valid until handle() returns.
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  // Sends the head (`status`, `headers`; the server adds transfer-encoding: chunked). Once; a
  // second call is ignored.
  virtual void open(int status, std::vector<std::pair<std::string, std::string>> headers) = 0;
  virtual bool is_open() const = 0;
  // Queues `data` (non-empty) as the next piece; requires open(). False once the client is gone.
  virtual bool write(std::string data) = 0;
};

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string target;  // path and query, as received
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // Set by the server for a request whose HeadDecision::may_stream was true; else null.
  // Borrowed: valid until handle() returns.
  ResponseStream* stream = nullptr;

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
  // Non-empty: requests with the same key run one at a time, in arrival order; those waiting
  // hold no worker thread (at most ServeOptions::max_waiting_per_key wait, past it 429).
  std::string serial_key;
  // The request may run for long (guest code): it counts against the long-running share of
  // the workers (ServeOptions::reserved_workers).
  bool long_running = false;
  // handle() gets an HttpRequest::stream (used by the execute routes when the client sent
  // Accept: text/event-stream).
  bool may_stream = false;
  // Kept alive until the response is written or the connection ends (e.g. a per-client slot
  // that its destructor gives back). May be null.
  std::shared_ptr<void> hold;
};

class HttpHandler {
 public:
  virtual ~HttpHandler() = default;
  virtual HeadDecision on_head(const HttpRequest& head) = 0;
  virtual HttpResponse handle(HttpRequest request) = 0;
};

// True when the request's Accept header lists text/event-stream (the execute routes then answer
// with Server-Sent Events, docs/protocol.md#streaming-output).
bool accepts_event_stream(const HttpRequest& request);

// An admission refusal, the one envelope of every "busy" answer (the limits above, sandboxd's
// per-API-key bound): an ErrorResponse of `kind` (kTooManyRequests 429 or kOverloaded 503,
// docs/errors.md) with context {limit, retryAfterSeconds: 1} and `Retry-After: 1`; `limit` names
// the option that bounds it ("max_connections", ...).
HttpResponse busy_response(ErrorKind kind, const std::string& message, std::string_view limit);

// Defaults of the admission limits (see the top of this file).
inline constexpr std::size_t kDefaultMaxConnections = 1024;
inline constexpr std::size_t kDefaultMaxQueuedRequests = 256;
inline constexpr std::size_t kDefaultMaxWaitingPerKey = 16;
inline constexpr int kDefaultReservedWorkers = 2;
// How long the accept loop pauses after a failed accept (EMFILE, ENFILE, ENOBUFS, ...).
inline constexpr int kAcceptBackoffMs = 50;

// Options of the HTTP server.
struct ServeOptions {
  std::string listen = "127.0.0.1:8787";  // HOST:PORT; port 0 picks a free port
  // One I/O thread: it only parses and writes HTTP (engine work runs on the workers), and with
  // two, handing a finished request back to them cost another wake-up: a stateless Lua `1+1`
  // answered in 185-211 us p50 with one against 228-232 us with two (2-core machine, same run),
  // and 16 connections were no slower.
  int io_threads = 1;
  int worker_threads = 16;
  // Stack size of worker threads: guest code compiled with wasm2c runs on it, so this is the
  // guest's native stack budget.
  std::size_t worker_stack_bytes = 16u << 20;
  // Stop gracefully on SIGINT/SIGTERM (finish in-flight requests, then return from run()).
  bool handle_signals = false;
  // Idle keep-alive connections are closed after this many seconds.
  int keep_alive_seconds = 60;
  // Open connections; one more is answered 503 and closed.
  std::size_t max_connections = kDefaultMaxConnections;
  // Requests admitted but waiting for a worker thread; one more is answered 503.
  std::size_t max_queued_requests = kDefaultMaxQueuedRequests;
  // Requests waiting behind another of the same HeadDecision::serial_key; one more: 429.
  std::size_t max_waiting_per_key = kDefaultMaxWaitingPerKey;
  // Workers never taken by long-running requests (clamped so that at least one worker may run
  // them): short requests (health, info, files) stay fast while guests loop.
  int reserved_workers = kDefaultReservedWorkers;
  // Where the server counts its admission refusals and reports its queues and connections
  // (docs/sandbox-api.md#metrics: sandbox_http_*); null: nowhere. Borrowed: must outlive the
  // server. The server does not answer GET /metrics itself: its handler does.
  MetricsRegistry* metrics = nullptr;
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

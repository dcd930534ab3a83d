// SandboxdHandler: sandboxd's HTTP surface, an HttpHandler over a SandboxService.
//
//   GET  /healthz                              {"status":"ok"} (no API key needed)
//   GET  /metrics                              the Prometheus text format, with
//                                               SandboxdOptions::metrics
//                                               (docs/sandbox-api.md#metrics)
//   GET  / and the Playground's files          SandboxdOptions::static_files, when set (no API
//                                               key needed; they hold no data)
//   GET  /languages                            {languages: [{id, binding, language, engine,
//                                               contexts, remote, available, limits}],
//                                               server: {name, version}}
//   POST /execute/{language}                   stateless convenience (body as a runtime's
//                                               POST /execute), on the binding whose id is
//                                               {language} (or whose built-in engine runs it)
//   GET|DELETE /sandboxes/{id}                 SandboxInfo / wipe
//   POST /sandboxes/{id}/execute               run code (context, default context, stateless)
//   POST|GET /sandboxes/{id}/contexts          create / list code contexts
//   DELETE /sandboxes/{id}/contexts/{ctx}      delete a code context
//   POST /sandboxes/{id}/env                   set/unset sandbox env vars
//   POST /sandboxes/{id}/files                 the files API
//   *    /runtimes/{BINDING}/...               a built-in engine's runtime protocol (GET
//                                               /interpreter, POST /execute, /interpreters/...),
//                                               so one sandboxd can be another's remote binding
//   POST /mcp                                  the MCP server (src/mcp/mcp_http.h), whose tools
//                                               call the routes above in process
//
// Errors are ErrorResponse bodies (unknown paths: 404 "Not found"; a known path with another
// method: 405 "Method not allowed" with an Allow header), except under /runtimes/, which answers
// exactly as a runtime server does. Body caps are checked from content-length before the body is
// read: 2 MiB for /files, 24 MiB for a runtime's /interpreters/:key/execute, kMaxMcpMessageBytes
// for /mcp, 96 KiB otherwise (an MCP tool's request to a route is held to that route's cap).
//
// With API keys configured, every route but /healthz and the static files needs
// `authorization: Bearer <key>` (401 otherwise), and each key runs at most
// `max_executions_per_key` executions at once (POST /sandboxes/{id}/execute, /execute/{language},
// /runtimes/{B}/execute and /runtimes/{B}/interpreters/{key}/execute, counted from the head until
// the answer is written, waiting included; past it 429 with Retry-After: 1; a POST /mcp counts as
// one, since a tool may run code). Without API keys, every route but /healthz (which load
// balancers probe with their own Host, and which holds nothing) passes the site guard
// (http/site_guard.h: a loopback or --allowed-host Origin and Host, JSON POST bodies), so a web
// page the operator visits cannot drive the server; a refusal is 403 (or 415) before anything
// else. Every request is reported to the log sink once, when answered.
//
// Admission (include/sandbox/http.h): GET /healthz and GET /metrics (after the API key and site
// guard checks) are answered from the request head, on the I/O thread, so they stay fast (and
// /metrics is never refused for a full worker queue) when every worker is busy; requests for one
// sandbox (and for one interpreter key under /runtimes/) share a serial key, so those waiting for a
// busy sandbox hold no worker thread; executions are marked long-running.
//
// Thread-safety: as HttpHandler (any thread).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <sandbox/clock.h>
#include <sandbox/http.h>
#include <sandbox/metrics.h>

#include "http/site_guard.h"
#include "mcp/mcp_server.h"
#include "sandbox/sandbox_service.h"
#include "server/request_log.h"
#include "server/static_files.h"

namespace sandbox {

// Executions one API key may have in flight (waiting ones included) by default.
inline constexpr std::size_t kDefaultMaxExecutionsPerKey = 8;

struct SandboxdOptions {
  // Accepted bearer tokens; empty: no authentication.
  std::vector<std::string> api_keys;
  // Per API key (only with api_keys); 0 = unlimited.
  std::size_t max_executions_per_key = kDefaultMaxExecutionsPerKey;
  // Called once per request, from the thread that answered it. May be empty.
  std::function<void(const RequestLogEntry&)> log;
  // Files served at their paths without an API key (the Playground, server/static_files.h);
  // null: none, and those paths are unknown like any other.
  std::shared_ptr<const StaticFiles> static_files;
  // Without api_keys every request but /healthz passes the site guard (http/site_guard.h);
  // these names are accepted in Host and Origin besides the loopback ones (--allowed-host).
  std::vector<std::string> allowed_hosts;
  // Served at GET /metrics (null: the route is unknown, 404), and where refusals of
  // max_executions_per_key are counted. Borrowed: must outlive the handler.
  MetricsRegistry* metrics = nullptr;
};

class SandboxdHandler final : public HttpHandler {
 public:
  // `service` and `clock` must outlive the handler.
  SandboxdHandler(SandboxService& service, const Clock& clock, SandboxdOptions options);

  HeadDecision on_head(const HttpRequest& head) override;
  HttpResponse handle(HttpRequest request) override;

 private:
  struct Route;
  // dispatch(), with an exception turned into its ErrorResponse.
  HttpResponse answer(const Route& route, HttpRequest& request);
  HttpResponse dispatch(const Route& route, HttpRequest& request);
  // The MCP tools' backend: one request to the routes above (not /mcp or /runtimes/), already
  // authorized by the /mcp request that carries it.
  HttpResponse mcp_fetch(const std::string& method, const std::string& path,
                         const std::string& body);
  HttpResponse languages();
  HttpResponse execute_language(const std::string& language, const HttpRequest& request);
  Binding* binding_for_language(const std::string& language) const;
  // The index in api_keys of the request's key; nullopt without a valid one. Without API keys
  // configured every request is authorized (index 0).
  std::optional<std::size_t> authorized_key(const HttpRequest& request) const;
  // A slot of key `index` until the returned hold is released; null when all are taken.
  std::shared_ptr<void> take_execution_slot(std::size_t index);
  HttpResponse error(ErrorKind kind, const std::string& message) const;
  void log(const HttpRequest& request, const Route& route, int status, double duration_ms) const;

  SandboxService& service_;
  const Clock& clock_;
  SandboxdOptions options_;
  SiteGuard site_guard_;  // from options_.allowed_hosts; used only without API keys
  // Executions in flight per API key (shared with the holds, which may outlive a request).
  struct ExecutionSlots {
    std::mutex mu;
    std::vector<std::size_t> running;
  };
  std::shared_ptr<ExecutionSlots> slots_;
  Counter* refused_executions_ = nullptr;  // with options_.metrics
  mcp::McpServer mcp_;
};

}  // namespace sandbox

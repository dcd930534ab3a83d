// GET /metrics over HTTP: the answer of the route (docs/sandbox-api.md#metrics), the handler of a
// listener that serves nothing else (sandboxd and sandbox-runtime --metrics-listen), and the
// metric families the HTTP layer itself feeds.
//
// The route is answered from the request head, on the I/O thread, like GET /healthz: a scrape
// needs no worker thread, so it is not refused when the worker queue is full, and its cost is
// bounded by the registry's size (kMaxMetricSeries).
//
// Thread-safety: the functions may be called from any thread; MetricsHandler as HttpHandler.
#pragma once

#include <string_view>

#include <sandbox/http.h>
#include <sandbox/metrics.h>

namespace sandbox {

// The path of the route.
inline constexpr std::string_view kMetricsPath = "/metrics";

// The answer to `head`, a request for kMetricsPath: 200 with `registry.render()` (content type
// kMetricsContentType, cache-control: no-store) for GET; for any other method 405
// METHOD_NOT_ALLOWED (an ErrorResponse) with `Allow: GET`.
HttpResponse metrics_response(const MetricsRegistry& registry, const HttpRequest& head);

// A handler that answers GET /metrics from `registry`, from the head (on the I/O thread), and
// hands every other request to `inner`; without one, it answers them with a plain-text 404 (the
// handler of --metrics-listen). It checks no API key and no site guard: bind a listener that
// serves it alone where only the scraper reaches (docs/sandbox-api.md#metrics). `registry` and
// `inner` must outlive the handler.
class MetricsHandler final : public HttpHandler {
 public:
  explicit MetricsHandler(const MetricsRegistry& registry, HttpHandler* inner = nullptr)
      : registry_(registry), inner_(inner) {}
  HeadDecision on_head(const HttpRequest& head) override;
  HttpResponse handle(HttpRequest request) override;

 private:
  const MetricsRegistry& registry_;
  HttpHandler* inner_;
};

// The counter of admission refusals for `limit` (the ServeOptions field or sandboxd flag that
// bounds it: "max_connections", "max_queued_requests", "max_waiting_per_key",
// "max_executions_per_key"): sandbox_http_refusals_total{limit}.
Counter& refusal_counter(MetricsRegistry& registry, std::string_view limit);

}  // namespace sandbox

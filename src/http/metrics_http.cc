#include "http/metrics_http.h"

#include <string>

#include <sandbox/clock.h>
#include <sandbox/protocol.h>

#include "http/error_answers.h"

namespace sandbox {

HttpResponse metrics_response(const MetricsRegistry& registry, const HttpRequest& head) {
  if (head.method != "GET") {
    return method_not_allowed("GET", "Use GET", SystemClock().now_ms());
  }
  HttpResponse r;
  r.status = 200;
  r.headers = {{"content-type", std::string(kMetricsContentType)}, {"cache-control", "no-store"}};
  r.body = registry.render();
  return r;
}

HeadDecision MetricsHandler::on_head(const HttpRequest& head) {
  if (head.path() == kMetricsPath) {
    HeadDecision d;
    d.early_response = metrics_response(registry_, head);
    return d;
  }
  if (inner_ != nullptr) return inner_->on_head(head);
  HeadDecision d;
  d.early_response = HttpResponse::text(404, "Not found");
  return d;
}

HttpResponse MetricsHandler::handle(HttpRequest request) {
  if (inner_ != nullptr && request.path() != kMetricsPath)
    return inner_->handle(std::move(request));
  return HttpResponse::text(404, "Not found");  // on_head answered it
}

Counter& refusal_counter(MetricsRegistry& registry, std::string_view limit) {
  return registry.counter("sandbox_http_refusals_total",
                          "Requests and connections refused by an admission limit, by the limit",
                          {{"limit", std::string(limit)}});
}

}  // namespace sandbox

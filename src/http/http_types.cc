#include <algorithm>
#include <cctype>
#include <charconv>

#include <sandbox/clock.h>
#include <sandbox/http.h>
#include <sandbox/protocol.h>

#include "http/error_answers.h"

namespace sandbox {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::optional<std::string> find_header(
    const std::vector<std::pair<std::string, std::string>>& headers, std::string_view name) {
  for (const auto& [k, v] : headers) {
    if (iequals(k, name)) return v;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> HttpRequest::header(std::string_view name) const {
  return find_header(headers, name);
}

std::string_view HttpRequest::path() const {
  const std::string_view t = target;
  return t.substr(0, t.find('?'));
}

std::optional<std::uint64_t> HttpRequest::content_length() const {
  const auto v = header("content-length");
  if (!v || v->empty() ||
      !std::all_of(v->begin(), v->end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  if (ec != std::errc() || end != v->data() + v->size()) return std::nullopt;
  return n;
}

HttpResponse HttpResponse::json(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.headers = {{"content-type", "application/json"}, {"cache-control", "no-store"}};
  r.body = std::move(body);
  return r;
}

HttpResponse HttpResponse::text(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.headers = {{"content-type", "text/plain; charset=utf-8"}};
  r.body = std::move(body);
  return r;
}

std::optional<std::string> HttpResponse::header(std::string_view name) const {
  return find_header(headers, name);
}

bool accepts_event_stream(const HttpRequest& request) {
  const auto accept = request.header("accept");
  if (!accept) return false;
  std::string_view rest = *accept;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    item = item.substr(0, item.find(';'));  // media-type parameters (q=...) do not matter here
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (iequals(item, "text/event-stream")) return true;
  }
  return false;
}

HttpResponse busy_response(ErrorKind kind, const std::string& message, std::string_view limit) {
  const ErrorResponse e =
      ApiError(kind, message, boost::json::object{{"limit", limit}, {"retryAfterSeconds", 1}})
          .to_response(SystemClock().now_ms());
  HttpResponse r = error_json(e);
  r.headers.emplace_back("retry-after", "1");
  return r;
}

}  // namespace sandbox

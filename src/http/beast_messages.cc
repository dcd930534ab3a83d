#include "http/beast_messages.h"

#include <string>

namespace sandbox {

namespace http = boost::beast::http;

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

}  // namespace sandbox

#include "client/http_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/url/parse.hpp>

namespace sandbox {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;

ParsedUrl parse_http_url(const std::string& url) {
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed || parsed->scheme() != "http" || parsed->host().empty()) {
    throw std::invalid_argument("expected an http://HOST[:PORT] URL, got '" + url + "'");
  }
  ParsedUrl out;
  out.host = std::string(parsed->host());
  if (out.host.size() >= 2 && out.host.front() == '[')
    out.host = out.host.substr(1, out.host.size() - 2);
  out.port = parsed->has_port() ? std::string(parsed->port()) : "80";
  out.path = std::string(parsed->encoded_path());
  if (parsed->has_query()) out.path += "?" + std::string(parsed->encoded_query());
  if (out.path.empty()) out.path = "/";
  return out;
}

struct HttpClient::Impl {
  ParsedUrl base;
  std::string prefix;
  std::chrono::milliseconds timeout;
  asio::io_context ioc;
  std::unique_ptr<beast::tcp_stream> stream;
  beast::flat_buffer buffer;

  void connect() {
    tcp::resolver resolver(ioc);
    beast::error_code ec;
    auto results = resolver.resolve(base.host, base.port, ec);
    if (ec) throw TransportError("cannot resolve " + base.host + ": " + ec.message());
    stream = std::make_unique<beast::tcp_stream>(ioc);
    stream->expires_after(timeout);
    stream->connect(results, ec);
    if (ec) {
      stream.reset();
      throw TransportError("cannot connect to " + base.host + ":" + base.port + ": " +
                           ec.message());
    }
    buffer.clear();
  }

  // Sends one request, on the kept connection when there is one; a stale kept connection is
  // replaced and the request sent once more. `on_body` set: an event-stream answer is passed on
  // in pieces as it arrives.
  HttpResponse send(const std::string& method, const std::string& path, const std::string& body,
                    const std::vector<std::pair<std::string, std::string>>& headers,
                    const std::function<void(std::string_view)>* on_body) {
    http::request<http::string_body> req;
    req.method_string(method);
    req.target(prefix + path);
    req.version(11);
    req.set(http::field::host, base.host + ":" + base.port);
    req.set(http::field::user_agent, "sandbox-workers-cpp");
    for (const auto& [k, v] : headers) req.set(k, v);
    req.keep_alive(true);
    if (!body.empty() || method == "POST" || method == "PUT") {
      req.body() = body;
      req.prepare_payload();
    }
    HttpResponse out;
    const bool had_connection = stream != nullptr;
    if (!had_connection) connect();
    if (attempt(req, out, !had_connection, on_body)) return out;
    connect();
    attempt(req, out, true, on_body);
    return out;
  }

  // One attempt on the current connection; returns false when the connection turned out stale
  // before anything of the response was read (the caller reconnects and retries once).
  bool attempt(http::request<http::string_body>& req, HttpResponse& out, bool fresh,
               const std::function<void(std::string_view)>* on_body = nullptr) {
    beast::error_code ec;
    stream->expires_after(timeout);
    http::write(*stream, req, ec);
    const beast::error_code write_ec = ec;
    // Even when sending failed, the server may have answered early (a 413 before the body was
    // read) and closed: read what it said.
    http::response_parser<http::string_body> parser;
    parser.body_limit(256ull << 20);
    bool streamed = false;  // pieces were handed on: a failure now cannot be retried
    if (on_body) {
      http::read_header(*stream, buffer, parser, ec);
      if (!ec && beast::iequals(parser.get()[http::field::content_type], "text/event-stream")) {
        // The body limit bounds what is buffered at once, not the stream: each piece is handed
        // on and dropped.
        while (!ec && !parser.is_done()) {
          stream->expires_after(timeout);
          http::read_some(*stream, buffer, parser, ec);
          std::string& piece = parser.get().body();
          if (!piece.empty()) {
            streamed = true;
            try {
              (*on_body)(piece);
            } catch (...) {
              stream.reset();  // left mid-response: the next request reconnects
              throw;
            }
            piece.clear();
          }
        }
      } else if (!ec) {
        http::read(*stream, buffer, parser, ec);
      }
    } else {
      http::read(*stream, buffer, parser, ec);
    }
    if (ec && write_ec) {
      if (!fresh) return false;
      throw TransportError("sending the request failed: " + write_ec.message());
    }
    if (ec) {
      if (!fresh && !streamed &&
          (ec == http::error::end_of_stream || ec == asio::error::connection_reset ||
           ec == asio::error::eof)) {
        return false;
      }
      throw TransportError("reading the response failed: " + ec.message());
    }
    const auto& res = parser.get();
    out.status = static_cast<int>(res.result_int());
    out.headers.clear();
    for (const auto& f : res)
      out.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
    out.body = res.body();
    if (!res.keep_alive()) stream.reset();
    return true;
  }
};

HttpClient::HttpClient(const std::string& base_url, std::chrono::milliseconds timeout)
    : impl_(std::make_unique<Impl>()) {
  impl_->base = parse_http_url(base_url);
  impl_->prefix = impl_->base.path == "/" ? "" : impl_->base.path;
  while (!impl_->prefix.empty() && impl_->prefix.back() == '/') impl_->prefix.pop_back();
  impl_->timeout = timeout;
}

HttpClient::~HttpClient() = default;

void HttpClient::set_timeout(std::chrono::milliseconds timeout) { impl_->timeout = timeout; }

HttpResponse HttpClient::request(const std::string& method, const std::string& path,
                                 const std::string& body,
                                 const std::vector<std::pair<std::string, std::string>>& headers) {
  return impl_->send(method, path, body, headers, nullptr);
}

HttpResponse HttpClient::request_streaming(
    const std::string& method, const std::string& path, const std::string& body,
    const std::vector<std::pair<std::string, std::string>>& headers,
    const std::function<void(std::string_view)>& on_body) {
  return impl_->send(method, path, body, headers, &on_body);
}

HttpResponse HttpClient::post_json(
    const std::string& path, const std::string& json,
    const std::vector<std::pair<std::string, std::string>>& headers) {
  auto all = headers;
  all.emplace_back("content-type", "application/json");
  return request("POST", path, json, all);
}

}  // namespace sandbox

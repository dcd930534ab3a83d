// Our HTTP values (HttpRequest, HttpResponse: include/sandbox/http.h) to and from Boost.Beast's
// messages, as HttpServer reads and writes them.
//
// Thread-safety: pure functions.
#pragma once

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <sandbox/http.h>

namespace sandbox {

// The method, target and headers of `r` (in order, repeats kept), and its body when `with_body`
// (a head seen before its body is read: without).
HttpRequest to_request(const boost::beast::http::request<boost::beast::http::string_body>& r,
                       bool with_body);

// `r` as a Beast response of HTTP `version` (11: 1.1), with content-length set from the body and
// the connection header from `keep_alive`.
boost::beast::http::response<boost::beast::http::string_body> to_beast(const HttpResponse& r,
                                                                       unsigned version,
                                                                       bool keep_alive);

}  // namespace sandbox

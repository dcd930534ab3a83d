// The HTTP answers of failures that every router of the servers gives the same way: an
// ErrorResponse as its response (status from its kind, the JSON body of docs/errors.md), and a
// 405 that names the methods the path does take (RouteTable's `allow`). The runtime routes of
// docs/protocol.md answer some failures in plain text instead; their router says which.
#pragma once

#include <cstdint>
#include <string>

#include <sandbox/http.h>
#include <sandbox/protocol.h>

namespace sandbox {

// The ErrorResponse as JSON with its http_status (application/json, no-store).
HttpResponse error_json(const ErrorResponse& error);

// 405 kMethodNotAllowed with `message` and the header `Allow: <allow>`.
HttpResponse method_not_allowed(std::string allow, const std::string& message, std::int64_t now_ms);

}  // namespace sandbox

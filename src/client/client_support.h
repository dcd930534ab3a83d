// Helpers shared by the runtime client and the sandbox client: turning an HTTP answer into JSON
// or the typed SandboxError of docs/sandbox-api.md#client-errors, and sending with transport
// failures mapped to SandboxError.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/value.hpp>

#include <sandbox/client.h>
#include <sandbox/http.h>

#include "client/http_client.h"

namespace sandbox::client_detail {

using Headers = std::vector<std::pair<std::string, std::string>>;

// SandboxError INTERNAL_ERROR with http_status 0 (the server was not reached or answered
// something that is not the protocol).
ErrorResponse transport_error(const std::string& message);

// The JSON body of a 2xx answer (204 -> {}); throws the typed SandboxError for anything else.
boost::json::value checked_json(const HttpResponse& response);

// Sends one request (a POST as JSON), mapping transport failures to SandboxError.
HttpResponse send_or_throw(HttpClient& client, const std::string& method, const std::string& path,
                           const std::string& body, const Headers& headers = {});

// POST of an execute route: as send_or_throw when both callbacks are empty; otherwise streamed
// (client.h, "Streaming output"), the callbacks seeing the text as it arrives.
HttpResponse send_execute_or_throw(HttpClient& client, const std::string& path,
                                   const std::string& body, const Headers& headers,
                                   const std::function<void(std::string_view)>& on_stdout_text,
                                   const std::function<void(std::string_view)>& on_stderr_text);

// The authorization header for `api_key`, or none.
Headers auth_headers(const std::string& api_key);

}  // namespace sandbox::client_detail

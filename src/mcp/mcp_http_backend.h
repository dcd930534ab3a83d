// The Backend of `sandbox mcp`: sandboxd's HTTP API on a server, through the C++ client's HTTP
// transport (one keep-alive connection), with the API key as a bearer token.
//
// A server that cannot be reached throws TransportError (the tool call then reports isError with
// its message). Thread-safety: the returned Backend may be called from any thread (calls are
// serialized on its one connection).
#pragma once

#include <string>

#include "mcp/mcp_server.h"

namespace sandbox::mcp {

// Throws std::invalid_argument for a URL that is not http://HOST[:PORT][/PREFIX].
Backend http_backend(const std::string& server_url, const std::string& api_key);

}  // namespace sandbox::mcp

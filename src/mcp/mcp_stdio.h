// The stdio transport of MCP (docs/mcp.md#stdio): newline-delimited JSON-RPC messages on
// standard input, one reply line per request on standard output, nothing else written there.
//
// A line longer than kMaxMcpMessageBytes is skipped to its end without being kept, and answered
// with an invalid-request error (id null). Empty lines are ignored; a trailing CR is dropped.
// Messages are handled one at a time, in order.
//
// Thread-safety: one call per pair of streams.
#pragma once

#include <istream>
#include <optional>
#include <ostream>
#include <string>

#include "mcp/mcp_server.h"

namespace sandbox::mcp {

// The next line of `in` without its newline; nullopt at end of input. A line over `max_bytes`
// comes back as the first max_bytes + 1 bytes (the rest is read and dropped), so the caller can
// tell it was too long.
std::optional<std::string> read_bounded_line(std::istream& in, std::size_t max_bytes);

// Serves until end of input. Returns 0.
int serve_mcp_stdio(const McpServer& server, std::istream& in, std::ostream& out);

}  // namespace sandbox::mcp

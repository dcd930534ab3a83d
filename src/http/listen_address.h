// The listen address of an HTTP server (ServeOptions::listen, sandboxd's --listen): the text
// HOST:PORT split into a host to resolve and a port number.
//
// Thread-safety: a pure function.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace sandbox {

// `listen` as {host, port}. The port is what follows the last ':' (so an IPv6 address may be
// written bare, `::1:8080`, or in brackets, `[::1]:8080`, which are removed), a decimal number
// in [0, 65535] (0: any free port); an empty host is "0.0.0.0" (every IPv4 interface). The host
// is not checked here: the server resolves it. Throws std::runtime_error without a ':'
// ("listen address must be HOST:PORT: <listen>") and for a port that is empty, not a number, has
// trailing characters or is out of range ("invalid port in listen address: <listen>").
std::pair<std::string, std::uint16_t> split_listen(const std::string& listen);

}  // namespace sandbox

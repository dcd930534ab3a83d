#include "http/listen_address.h"

#include <exception>
#include <stdexcept>

namespace sandbox {

std::pair<std::string, std::uint16_t> split_listen(const std::string& listen) {
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos)
    throw std::runtime_error("listen address must be HOST:PORT: " + listen);
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  const std::string port_text = listen.substr(colon + 1);
  int port = -1;
  try {
    std::size_t used = 0;
    port = std::stoi(port_text, &used);
    if (used != port_text.size()) port = -1;
  } catch (const std::exception&) {
    port = -1;
  }
  if (port < 0 || port > 65535)
    throw std::runtime_error("invalid port in listen address: " + listen);
  if (host.empty()) host = "0.0.0.0";
  return {host, static_cast<std::uint16_t>(port)};
}

}  // namespace sandbox

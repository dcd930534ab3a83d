// Standard base64 (RFC 4648, with padding), as JavaScript's Buffer/atob speak it on the wire.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sandbox {

std::string base64_encode(std::span<const std::uint8_t> bytes);
inline std::string base64_encode(std::string_view text) {
  return base64_encode(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

// Decodes standard base64. Whitespace is ignored and missing padding is tolerated; any other
// character outside the alphabet, or a length that cannot be valid, yields nullopt.
std::optional<std::vector<std::uint8_t>> base64_decode(std::string_view text);

}  // namespace sandbox

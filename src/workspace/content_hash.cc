// The content hash of docs/protocol.md#workspace-hash. Must match the JavaScript implementation bit
// for bit: the JS code uses Math.imul, whose low 32 bits equal uint32_t wrap-around multiplication.
#include <sandbox/workspace.h>

namespace sandbox {

std::string content_hash(std::span<const std::uint8_t> bytes) {
  std::uint32_t h1 = 0x811C9DC5u;
  std::uint32_t h2 = 0x01000193u ^ static_cast<std::uint32_t>(bytes.size());
  for (const std::uint8_t b : bytes) {
    h1 = (h1 ^ b) * 0x01000193u;
    h2 = (h2 + b) * 0x85EBCA6Bu;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 0; i < 8; ++i) {
    out[7 - i] = kHex[(h1 >> (4 * i)) & 0xF];
    out[15 - i] = kHex[(h2 >> (4 * i)) & 0xF];
  }
  return out;
}

}  // namespace sandbox

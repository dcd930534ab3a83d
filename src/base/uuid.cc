#include "base/uuid.h"

#include <cstdint>
#include <cstdio>
#include <random>

#include <sys/random.h>

namespace sandbox {

std::string random_uuid() {
  std::uint8_t b[16];
  std::size_t filled = 0;
  while (filled < sizeof b) {
    const ssize_t n = getrandom(b + filled, sizeof b - filled, 0);
    if (n <= 0) {  // no CSPRNG available: fall back to random_device
      std::random_device rd;
      for (auto& x : b) x = static_cast<std::uint8_t>(rd());
      filled = sizeof b;
      break;
    }
    filled += static_cast<std::size_t>(n);
  }
  b[6] = static_cast<std::uint8_t>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<std::uint8_t>((b[8] & 0x3f) | 0x80);
  char out[37];
  std::snprintf(out, sizeof out,
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                b[15]);
  return out;
}

}  // namespace sandbox

#include "base/utf8.h"

#include <cstdint>

namespace sandbox {
namespace {

// Length of the well-formed sequence starting at s[i], or 0 when it is ill-formed; `maximal`
// receives how many bytes form the maximal ill-formed prefix (at least 1).
std::size_t sequence_length(std::string_view s, std::size_t i, std::size_t& maximal) {
  const auto b = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
  const std::uint8_t c = b(i);
  maximal = 1;
  if (c < 0x80) return 1;
  std::size_t need = 0;
  std::uint8_t lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 2;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 3;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  for (std::size_t k = 1; k <= need; ++k) {
    if (i + k >= s.size()) return 0;
    const std::uint8_t t = b(i + k);
    const std::uint8_t l = k == 1 ? lo : 0x80;
    const std::uint8_t h = k == 1 ? hi : 0xBF;
    if (t < l || t > h) return 0;
    maximal = k + 1;
  }
  return need + 1;
}

}  // namespace

bool is_valid_utf8(std::string_view bytes) {
  for (std::size_t i = 0; i < bytes.size();) {
    std::size_t maximal = 0;
    const std::size_t n = sequence_length(bytes, i, maximal);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string sanitize_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    std::size_t maximal = 0;
    const std::size_t n = sequence_length(bytes, i, maximal);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      i += maximal;
    } else {
      out.append(bytes.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::size_t utf16_length(std::string_view utf8) {
  std::size_t units = 0;
  for (std::size_t i = 0; i < utf8.size();) {
    std::size_t maximal = 0;
    const std::size_t n = sequence_length(utf8, i, maximal);
    if (n == 0) {
      ++units;
      i += maximal;
    } else {
      units += n == 4 ? 2 : 1;
      i += n;
    }
  }
  return units;
}

std::string_view utf8_prefix(std::string_view s, std::size_t max_chars) {
  std::size_t i = 0;
  for (std::size_t chars = 0; i < s.size() && chars < max_chars; ++chars) {
    std::size_t maximal = 0;
    const std::size_t n = sequence_length(s, i, maximal);
    i += n == 0 ? maximal : n;
  }
  return s.substr(0, i);
}

}  // namespace sandbox

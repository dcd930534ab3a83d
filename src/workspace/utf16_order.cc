#include "workspace/utf16_order.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "base/utf8.h"

namespace sandbox {

std::u16string to_utf16(std::string_view utf8) {
  const std::string text = sanitize_utf8(utf8);  // well-formed from here on
  std::u16string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto b = [&](std::size_t k) {
      return static_cast<std::uint32_t>(static_cast<unsigned char>(text[i + k]));
    };
    std::uint32_t cp = 0;
    const std::uint32_t c = b(0);
    if (c < 0x80) {
      cp = c;
      i += 1;
    } else if (c < 0xE0) {
      cp = ((c & 0x1F) << 6) | (b(1) & 0x3F);
      i += 2;
    } else if (c < 0xF0) {
      cp = ((c & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
      i += 3;
    } else {
      cp = ((c & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
      i += 4;
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
      out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
  }
  return out;
}

bool utf16_less(std::string_view a, std::string_view b) { return to_utf16(a) < to_utf16(b); }

void sort_utf16(std::vector<std::string>& strings) {
  std::vector<std::pair<std::u16string, std::string>> keyed;
  keyed.reserve(strings.size());
  for (auto& s : strings) keyed.emplace_back(to_utf16(s), std::move(s));
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  for (std::size_t i = 0; i < keyed.size(); ++i) strings[i] = std::move(keyed[i].second);
}

}  // namespace sandbox

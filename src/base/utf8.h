// UTF-8 helpers for text that crosses the wire: guest output, file contents, error messages.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sandbox {

// True when `bytes` is well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
bool is_valid_utf8(std::string_view bytes);

// Decodes leniently, as TextDecoder does: every maximal ill-formed subsequence becomes U+FFFD.
std::string sanitize_utf8(std::string_view bytes);

// The length `s` would have in UTF-16 code units (JavaScript's String.length).
std::size_t utf16_length(std::string_view utf8);

// The longest prefix of `s` holding at most `max_chars` code points (never splits a code point).
std::string_view utf8_prefix(std::string_view s, std::size_t max_chars);

}  // namespace sandbox

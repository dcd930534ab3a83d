// JavaScript's default string order (Array.prototype.sort without a comparator): lexicographic
// by UTF-16 code units. It differs from UTF-8 byte order only for code points above U+FFFF
// (surrogates 0xD800-0xDFFF sort below U+E000-U+FFFF). Ill-formed UTF-8 compares as if each
// maximal ill-formed subsequence were U+FFFD (what the text would be after crossing into JS).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sandbox {

// UTF-16 code units of `utf8`.
std::u16string to_utf16(std::string_view utf8);

// True when `a` sorts before `b` by UTF-16 code units. Thread-safe (pure).
bool utf16_less(std::string_view a, std::string_view b);

// Sorts in place by utf16_less (stable, so equal keys keep their order).
void sort_utf16(std::vector<std::string>& strings);

}  // namespace sandbox

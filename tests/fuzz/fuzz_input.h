// Helpers shared by the fuzz targets (docs/fuzzing.md): a reader that splits one fuzz input into
// the pieces a target needs, never reading past its end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace sandbox::fuzz {

// Records of a multi-request input are separated by this byte (0xff never occurs in UTF-8 text,
// so a seed stays readable JSON between separators).
inline constexpr char kRecordSeparator = '\xff';

class FuzzInput {
 public:
  FuzzInput(const std::uint8_t* data, std::size_t size)
      : data_(reinterpret_cast<const char*>(data)), size_(size) {}

  bool empty() const { return pos_ >= size_; }
  std::size_t remaining() const { return size_ - pos_; }

  // The next byte, or 0 at the end.
  std::uint8_t u8() { return empty() ? 0 : static_cast<std::uint8_t>(data_[pos_++]); }
  // Little-endian; missing bytes read as 0.
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t{u8()} << (8 * i);
    return v;
  }
  std::uint64_t u64() { return u32() | (std::uint64_t{u32()} << 32); }

  // Up to the next kRecordSeparator (consumed, not returned) or the end.
  std::string_view record() {
    const std::size_t start = pos_;
    while (pos_ < size_ && data_[pos_] != kRecordSeparator) ++pos_;
    const std::string_view out(data_ + start, pos_ - start);
    if (pos_ < size_) ++pos_;
    return out;
  }
  // A length byte, then that many bytes (fewer at the end).
  std::string_view short_string() {
    const std::size_t n = std::min<std::size_t>(u8(), remaining());
    const std::string_view out(data_ + pos_, n);
    pos_ += n;
    return out;
  }
  std::string_view rest() {
    const std::string_view out(data_ + pos_, remaining());
    pos_ = size_;
    return out;
  }

 private:
  const char* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

}  // namespace sandbox::fuzz

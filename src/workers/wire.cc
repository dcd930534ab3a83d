#include "workers/wire.h"

namespace sandbox::workers {

void Writer::u32(std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void Writer::u64(std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void Writer::str(std::string_view s) {
  if (s.size() > UINT32_MAX) throw WireError("string too long to encode");
  u32(static_cast<std::uint32_t>(s.size()));
  out_.append(s);
}

void Writer::raw(std::span<const std::uint8_t> bytes) {
  out_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::string_view Reader::raw(std::size_t n) {
  if (n > left()) throw WireError("worker message cut short");
  const std::string_view v = in_.substr(at_, n);
  at_ += n;
  return v;
}

std::uint8_t Reader::u8() { return static_cast<std::uint8_t>(raw(1)[0]); }

bool Reader::boolean() {
  const std::uint8_t v = u8();
  if (v > 1) throw WireError("worker message has a bad boolean");
  return v == 1;
}

std::uint32_t Reader::u32() {
  const std::string_view b = raw(4);
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[i]);
  return v;
}

std::uint64_t Reader::u64() {
  const std::string_view b = raw(8);
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[i]);
  return v;
}

std::string_view Reader::str_view() { return raw(u32()); }

std::string Reader::str() { return std::string(str_view()); }

std::uint32_t Reader::count(std::size_t min_item_bytes) {
  const std::uint32_t n = u32();
  if (min_item_bytes > 0 && n > left() / min_item_bytes) {
    throw WireError("worker message counts more items than it holds");
  }
  return n;
}

void Reader::finish() const {
  if (at_ != in_.size()) throw WireError("worker message has trailing bytes");
}

}  // namespace sandbox::workers

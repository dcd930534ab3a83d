// Writer and Reader: the little-endian binary encoding of the worker protocol's payloads
// (src/workers/worker_protocol.h). Integers are fixed-width little-endian; strings and byte
// strings are a u32 length and the bytes.
//
// The Reader checks every length and count against the bytes that are left before it
// allocates, so a payload from a compromised worker can make the server allocate at most about
// the payload's own size; anything malformed throws WireError.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sandbox::workers {

class WireError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Writer {
 public:
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void boolean(bool v) { u8(v ? 1 : 0); }
  void u32(std::uint32_t v);
  void u64(std::uint64_t v);
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void str(std::string_view s);
  // Raw bytes, no length (the reader knows how many).
  void raw(std::span<const std::uint8_t> bytes);
  std::string& buffer() { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  std::uint8_t u8();
  bool boolean();
  std::uint32_t u32();
  std::uint64_t u64();
  std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
  std::string str();
  std::string_view str_view();
  // `n` raw bytes, viewed in place.
  std::string_view raw(std::size_t n);
  // A count of items of at least `min_item_bytes` each: refused when the rest cannot hold them.
  std::uint32_t count(std::size_t min_item_bytes);
  std::size_t left() const { return in_.size() - at_; }
  // Throws unless every byte was read.
  void finish() const;

 private:
  std::string_view in_;
  std::size_t at_ = 0;
};

}  // namespace sandbox::workers

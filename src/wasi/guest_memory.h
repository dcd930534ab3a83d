// Bounds-checked access to a guest's linear memory. Every method checks `[offset, offset+len)`
// against the memory's current size (re-read at each call: the guest may have grown it), so a
// bad guest pointer becomes EFAULT instead of a host fault.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include <wasm-rt.h>

namespace sandbox::wasi {

class GuestMemory {
 public:
  explicit GuestMemory(wasm_rt_memory_t* memory = nullptr) : memory_(memory) {}

  bool attached() const { return memory_ != nullptr; }
  std::uint64_t size() const { return memory_ ? memory_->size : 0; }

  bool contains(std::uint64_t offset, std::uint64_t len) const {
    return memory_ != nullptr && offset <= memory_->size && len <= memory_->size - offset;
  }

  // A view of guest bytes; empty when out of bounds (check contains() first for len > 0).
  std::span<std::uint8_t> bytes(std::uint32_t offset, std::uint32_t len) const {
    if (!contains(offset, len)) return {};
    return {memory_->data + offset, len};
  }
  std::string_view text(std::uint32_t offset, std::uint32_t len) const {
    auto b = bytes(offset, len);
    return {reinterpret_cast<const char*>(b.data()), b.size()};
  }

  bool load_u32(std::uint32_t offset, std::uint32_t& out) const { return load(offset, out); }
  bool load_u64(std::uint32_t offset, std::uint64_t& out) const { return load(offset, out); }
  bool store_u8(std::uint32_t offset, std::uint8_t v) const { return store(offset, v); }
  bool store_u16(std::uint32_t offset, std::uint16_t v) const { return store(offset, v); }
  bool store_u32(std::uint32_t offset, std::uint32_t v) const { return store(offset, v); }
  bool store_u64(std::uint32_t offset, std::uint64_t v) const { return store(offset, v); }
  bool write(std::uint32_t offset, std::span<const std::uint8_t> data) const {
    if (!contains(offset, data.size())) return false;
    if (!data.empty()) std::memcpy(memory_->data + offset, data.data(), data.size());
    return true;
  }
  bool fill(std::uint32_t offset, std::uint32_t len, std::uint8_t value) const {
    if (!contains(offset, len)) return false;
    if (len != 0) std::memset(memory_->data + offset, value, len);
    return true;
  }

 private:
  // Wasm is little-endian, as is every host we build for.
  template <typename T>
  bool load(std::uint32_t offset, T& out) const {
    if (!contains(offset, sizeof(T))) return false;
    std::memcpy(&out, memory_->data + offset, sizeof(T));
    return true;
  }
  template <typename T>
  bool store(std::uint32_t offset, T v) const {
    if (!contains(offset, sizeof(T))) return false;
    std::memcpy(memory_->data + offset, &v, sizeof(T));
    return true;
  }

  wasm_rt_memory_t* memory_;
};

}  // namespace sandbox::wasi

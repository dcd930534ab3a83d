#include "scaffold/wasm_exports.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>

#include "scaffold/scaffold.h"

namespace sandbox::scaffold {
namespace {

constexpr std::uint8_t kExportSection = 7;
constexpr std::uint8_t kFunctionExport = 0;

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  bool done() const { return pos_ == bytes_.size(); }
  std::size_t pos() const { return pos_; }

  std::uint8_t byte() {
    if (pos_ >= bytes_.size()) malformed("unexpected end");
    return static_cast<std::uint8_t>(bytes_[pos_++]);
  }

  std::uint32_t u32() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      const std::uint8_t b = byte();
      value |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) {
        if (value > UINT32_MAX) malformed("integer too large");
        return static_cast<std::uint32_t>(value);
      }
    }
    malformed("integer too long");
  }

  std::string_view take(std::uint32_t n) {
    if (n > bytes_.size() - pos_) malformed("a length runs past the end");
    const std::string_view out = bytes_.substr(pos_, n);
    pos_ += n;
    return out;
  }

  [[noreturn]] static void malformed(const std::string& what) {
    throw ScaffoldError("not a valid Wasm binary: " + what);
  }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

}  // namespace

std::vector<std::string> wasm_function_exports(std::string_view binary) {
  if (binary.size() < 8 || binary.substr(0, 4) != std::string_view("\0asm", 4)) {
    throw ScaffoldError("not a Wasm binary (no \\0asm header)");
  }
  if (binary.substr(4, 4) != std::string_view("\1\0\0\0", 4)) {
    throw ScaffoldError("unsupported Wasm binary version (expected 1)");
  }
  Reader reader(binary.substr(8));
  std::vector<std::string> out;
  while (!reader.done()) {
    const std::uint8_t id = reader.byte();
    const std::uint32_t size = reader.u32();
    Reader section(reader.take(size));
    if (id != kExportSection) continue;
    const std::uint32_t count = section.u32();
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::string_view name = section.take(section.u32());
      const std::uint8_t kind = section.byte();
      section.u32();  // the index
      if (kind == kFunctionExport) out.emplace_back(name);
    }
    if (!section.done()) Reader::malformed("trailing bytes in the export section");
  }
  return out;
}

std::vector<std::string> missing_embedded_exports(const std::vector<std::string>& exports) {
  std::vector<std::string> missing;
  for (const char* name :
       {"alloc", "dealloc", "session_init", "eval", "result_ptr", "result_len"}) {
    if (std::find(exports.begin(), exports.end(), name) == exports.end()) missing.push_back(name);
  }
  return missing;
}

std::vector<std::string> wasmify_methods(const std::vector<std::string>& exports) {
  std::vector<std::pair<std::uint64_t, std::string>> numbered;
  for (const auto& name : exports) {
    const std::string_view digits =
        std::string_view(name).substr(std::min<std::size_t>(4, name.size()));
    if (!name.starts_with("w_0_") || digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    numbered.emplace_back(std::stoull(std::string(digits)), name);
  }
  std::sort(numbered.begin(), numbered.end());
  std::vector<std::string> out;
  out.reserve(numbered.size());
  for (auto& [n, name] : numbered) out.push_back(std::move(name));
  return out;
}

std::vector<std::string> missing_wasmify_exports(const std::vector<std::string>& exports) {
  std::vector<std::string> missing;
  for (const char* name : {"wasm_init", "wasm_alloc", "wasm_free"}) {
    if (std::find(exports.begin(), exports.end(), name) == exports.end()) missing.push_back(name);
  }
  if (wasmify_methods(exports).empty()) missing.emplace_back("w_0_<N>");
  return missing;
}

}  // namespace sandbox::scaffold

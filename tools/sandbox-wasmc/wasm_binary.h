// A reader for the parts of the WebAssembly binary format sandbox-wasmc needs: types, imports,
// function/table/memory/global declarations and exports, plus rewriting the memory maximum.
// Code and data are not decoded (wasm2c and binaryen do that).
//
// Errors: read_wasm_module() throws WasmFormatError with the byte offset on malformed input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace sandbox::wasmc {

class WasmFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Value type codes as in the binary format.
enum class ValueType : std::uint8_t {
  kI32 = 0x7f,
  kI64 = 0x7e,
  kF32 = 0x7d,
  kF64 = 0x7c,
  kV128 = 0x7b,
  kFuncRef = 0x70,
  kExternRef = 0x6f,
};
// "i32", "i64", ...
std::string value_type_name(ValueType type);

enum class ExternalKind : std::uint8_t {
  kFunction = 0,
  kTable = 1,
  kMemory = 2,
  kGlobal = 3,
  kTag = 4
};
std::string external_kind_name(ExternalKind kind);

struct FuncType {
  std::vector<ValueType> params;
  std::vector<ValueType> results;
};

struct Limits {
  std::uint64_t initial = 0;
  std::optional<std::uint64_t> maximum;
  bool shared = false;
  bool is64 = false;
};

struct Import {
  std::string module;
  std::string name;
  ExternalKind kind = ExternalKind::kFunction;
  std::uint32_t type_index = 0;  // functions
};

struct Global {
  ValueType type = ValueType::kI32;
  bool is_mutable = false;
  bool imported = false;
};

struct Export {
  std::string name;
  ExternalKind kind = ExternalKind::kFunction;
  std::uint32_t index = 0;
};

struct WasmModule {
  std::vector<FuncType> types;
  std::vector<Import> imports;
  // Type index of every function, imported ones first (the function index space).
  std::vector<std::uint32_t> function_types;
  std::uint32_t imported_functions = 0;
  std::vector<Limits> memories;  // the memory index space, imported ones first
  std::vector<Global> globals;   // the global index space, imported ones first
  std::uint32_t tables = 0;
  std::vector<Export> exports;
  bool has_name_section = false;
  bool has_tag_section = false;  // exception tags: the module uses Wasm exception handling
  // Byte range of the memory section (id byte included), for rewriting.
  std::size_t memory_section_begin = 0;
  std::size_t memory_section_end = 0;

  const FuncType& function_type(std::uint32_t function_index) const;
};

WasmModule read_wasm_module(std::span<const std::uint8_t> bytes);

// Returns `bytes` with the (single, defined) memory's maximum set to min(current maximum,
// max_pages). Throws WasmFormatError if the initial size exceeds max_pages or the module does
// not define exactly one memory.
std::vector<std::uint8_t> cap_memory_maximum(std::span<const std::uint8_t> bytes,
                                             std::uint64_t max_pages);

}  // namespace sandbox::wasmc

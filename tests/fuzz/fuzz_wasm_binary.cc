// Fuzz target: sandbox-wasmc's Wasm binary reader (tools/sandbox-wasmc/wasm_binary.h) on the
// whole input, then cap_memory_maximum. Checked beyond "no crash": only WasmFormatError escapes;
// every function of a module that reads has a type (function_type); a capped module reads
// again, with the same sections, and its memory maximum is at most the cap.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "fuzz_assert.h"
#include "wasm_binary.h"

namespace {

using namespace sandbox::wasmc;

constexpr std::uint64_t kCapPages = 1024;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  WasmModule m;
  try {
    m = read_wasm_module(bytes);
  } catch (const WasmFormatError&) {
    return 0;
  }
  for (std::uint32_t f = 0; f < m.function_types.size(); ++f) (void)m.function_type(f);
  for (const auto& e : m.exports) (void)external_kind_name(e.kind);
  for (const auto& t : m.types) {
    for (const auto v : t.params) (void)value_type_name(v);
  }
  std::vector<std::uint8_t> capped;
  try {
    capped = cap_memory_maximum(bytes, kCapPages);
  } catch (const WasmFormatError&) {
    return 0;
  }
  const WasmModule again = read_wasm_module(capped);
  FUZZ_CHECK(again.memories.size() == 1 && again.memories[0].maximum &&
             *again.memories[0].maximum <= kCapPages);
  FUZZ_CHECK(again.memories[0].initial == m.memories[0].initial);
  FUZZ_CHECK(again.function_types == m.function_types && again.exports.size() == m.exports.size());
  return 0;
}

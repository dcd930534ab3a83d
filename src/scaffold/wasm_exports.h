// Reading the export section of a Wasm binary: enough for `sandbox init --wasm` (`--wasmify`) to
// tell a module implementing the embedded (wasmify) ABI from anything else before generating a
// project.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sandbox::scaffold {

// The names of the functions `binary` exports, in section order. Throws ScaffoldError when the
// bytes are not a well-formed Wasm 1.0 binary (magic, version, section and export bounds).
std::vector<std::string> wasm_function_exports(std::string_view binary);

// The embedded ABI's required exports (include/sandbox/embedded.h) that `exports` lacks.
std::vector<std::string> missing_embedded_exports(const std::vector<std::string>& exports);

// The wasmify ABI's required exports (docs/wasmify-abi.md#exports) that `exports` lacks: wasm_init,
// wasm_alloc, wasm_free, and "w_0_<N>" when it has no API function at all.
std::vector<std::string> missing_wasmify_exports(const std::vector<std::string>& exports);

// The wasmify API functions among `exports` ("w_0_<N>", N decimal digits), ordered by N.
std::vector<std::string> wasmify_methods(const std::vector<std::string>& exports);

}  // namespace sandbox::scaffold

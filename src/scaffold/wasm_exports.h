// Reading the export section of a Wasm binary: enough for `sandbox init --wasm` to tell a
// module implementing the embedded ABI from anything else before generating a project.
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

}  // namespace sandbox::scaffold

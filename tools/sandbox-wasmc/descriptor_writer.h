// Generates the C glue of a compiled module from its final .wasm and the wasm2c header:
//   * the import plan: which imports the host provides (called through wrappers that bracket
//     them with sandbox_wasm_host_enter/leave) and which become trapping stubs;
//   * <name>_descriptor.c: the sandbox_wasm_module_descriptor (src/wasm/module_descriptor.h)
//     and its getter `sandbox_wasm_module_<name>()`, the module's only global symbol;
//   * <name>_stubs.c: the stubs (module-private once hidden symbols are localized);
//   * <name>.h: the public header declaring the getter.
//
// Throws PlanError for what the runtime cannot support: imported memories, tables, globals or
// tags, several memories, 64-bit or shared memory, export names containing NUL.
#pragma once

#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "wasm2c_header.h"
#include "wasm_binary.h"

namespace sandbox::wasmc {

class PlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Import modules the runtime itself implements (`sandbox.fuel_exhausted`).
inline constexpr const char* kRuntimeImportModule = "sandbox";

// Rejects modules the runtime cannot instantiate (see above).
void check_supported(const WasmModule& module);

struct ModulePlan {
  std::string name;
  std::string wasm_sha256;
  // "module" or "module.name" entries the host provides.
  std::set<std::string> provided;
};

struct GeneratedGlue {
  std::string common_extra;                              // import wrappers, for the common header
  std::unordered_map<std::string, std::string> renames;  // import symbol -> wrapper
  std::string descriptor_c;
  std::string stubs_c;
  std::string public_header;
  unsigned provided_imports = 0;
  unsigned stubbed_imports = 0;
  bool metered = false;
  std::string fuel_field;  // the instance field of the fuel global when metered
};

GeneratedGlue generate_glue(const ModulePlan& plan, const WasmModule& module,
                            const Wasm2cHeader& header);

// `s` as a C string literal (octal escapes for anything but printable ASCII).
std::string c_string_literal(std::string_view s);

}  // namespace sandbox::wasmc

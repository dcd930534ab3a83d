// The fuel transform, through binaryen's C API (Debian `binaryen`, version 108).
//
// Adds an exported mutable i64 global `fuel` (initially INT64_MAX) and an imported function
// `sandbox.fuel_exhausted: [] -> []`. binaryen's `log-execution` pass instruments every function
// entry, every loop header and every explicit `return` with a call to a logger (its tick before
// the end of each function body is removed again); the logger becomes an internal function
// `log_execution`
//     fuel -= 1; if (fuel < 0) sandbox.fuel_exhausted();
// which the splitter makes `static inline` in every unit. The splitter then replaces each call of
// it by a decrement of a per-function C local copy of `fuel`, written back around calls and
// returns, and calls `log_execution` only when the local goes negative (SplitOptions::fuel_field):
// the same fuel points, so the same counts. The host sets `fuel` before a call and reads it
// afterwards. The output always has a name section.
//
// Throws FuelPassError when binaryen cannot read or validate the module, or when the module is
// already metered (it has a `fuel` export, a `log_execution` function or a sandbox.fuel_exhausted
// import).
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

namespace sandbox::wasmc {

class FuelPassError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr const char* kFuelGlobal = "fuel";
inline constexpr const char* kFuelImportModule = "sandbox";
inline constexpr const char* kFuelImportName = "fuel_exhausted";
// The C name wasm2c gives the tick function.
inline constexpr const char* kFuelTickFunction = "w2c_log_execution";

struct FuelPassResult {
  std::vector<std::uint8_t> wasm;
};

// `keep_names`: write a name section (binaryen drops it otherwise).
FuelPassResult add_fuel_metering(std::span<const std::uint8_t> wasm, bool keep_names);

}  // namespace sandbox::wasmc

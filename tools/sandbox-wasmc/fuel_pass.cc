#include "fuel_pass.h"

#include <binaryen-c.h>

#include <cstdlib>
#include <memory>
#include <string>

namespace sandbox::wasmc {
namespace {

// Owns a BinaryenModuleRef.
struct ModuleDeleter {
  void operator()(BinaryenModuleRef m) const { BinaryenModuleDispose(m); }
};
using ModulePtr = std::unique_ptr<std::remove_pointer_t<BinaryenModuleRef>, ModuleDeleter>;

constexpr const char* kLogger = "log_execution";  // the internal name log-execution uses
constexpr const char* kFuelImport = "sandbox_fuel_exhausted";

}  // namespace

FuelPassResult add_fuel_metering(std::span<const std::uint8_t> wasm, bool keep_names) {
  std::vector<char> copy(wasm.begin(), wasm.end());
  ModulePtr module(BinaryenModuleRead(copy.data(), copy.size()));
  if (!module) throw FuelPassError("binaryen could not read the module");
  BinaryenModuleRef m = module.get();
  // Modules without a target_features section read as MVP; the code we compile uses these.
  BinaryenModuleSetFeatures(
      m, BinaryenModuleGetFeatures(m) | BinaryenFeatureMutableGlobals() |
             BinaryenFeatureSignExt() | BinaryenFeatureBulkMemory() |
             BinaryenFeatureNontrappingFPToInt() | BinaryenFeatureMultivalue() |
             BinaryenFeatureReferenceTypes());

  if (BinaryenGetFunction(m, kLogger) != nullptr || BinaryenGetExport(m, kFuelGlobal) != nullptr ||
      BinaryenGetGlobal(m, kFuelGlobal) != nullptr || BinaryenGetFunction(m, kFuelImport) != nullptr) {
    throw FuelPassError(
        "module already has a 'fuel' global/export or a 'log_execution' function (already "
        "metered?)");
  }

  const char* passes[] = {"log-execution"};
  BinaryenModuleRunPasses(m, passes, 1);
  if (BinaryenGetFunction(m, kLogger) == nullptr) {
    throw FuelPassError("binaryen's log-execution pass did not add its logger");
  }
  BinaryenRemoveFunction(m, kLogger);

  BinaryenAddGlobal(m, kFuelGlobal, BinaryenTypeInt64(), true,
                    BinaryenConst(m, BinaryenLiteralInt64(INT64_MAX)));
  BinaryenAddGlobalExport(m, kFuelGlobal, kFuelGlobal);
  BinaryenAddFunctionImport(m, kFuelImport, kFuelImportModule, kFuelImportName,
                            BinaryenTypeNone(), BinaryenTypeNone());

  // (func $log_execution (param i32)
  //   (global.set $fuel (i64.sub (global.get $fuel) (i64.const 1)))
  //   (if (i64.lt_s (global.get $fuel) (i64.const 0)) (call $sandbox_fuel_exhausted)))
  BinaryenExpressionRef decrement = BinaryenGlobalSet(
      m, kFuelGlobal,
      BinaryenBinary(m, BinaryenSubInt64(), BinaryenGlobalGet(m, kFuelGlobal, BinaryenTypeInt64()),
                     BinaryenConst(m, BinaryenLiteralInt64(1))));
  BinaryenExpressionRef check = BinaryenIf(
      m,
      BinaryenBinary(m, BinaryenLtSInt64(), BinaryenGlobalGet(m, kFuelGlobal, BinaryenTypeInt64()),
                     BinaryenConst(m, BinaryenLiteralInt64(0))),
      BinaryenCall(m, kFuelImport, nullptr, 0, BinaryenTypeNone()), nullptr);
  BinaryenExpressionRef body[] = {decrement, check};
  BinaryenAddFunction(m, kLogger, BinaryenTypeInt32(), BinaryenTypeNone(), nullptr, 0,
                      BinaryenBlock(m, nullptr, body, 2, BinaryenTypeNone()));

  if (!BinaryenModuleValidate(m)) {
    throw FuelPassError("the metered module does not validate (binaryen printed why above)");
  }
  BinaryenSetDebugInfo(keep_names);
  BinaryenModuleAllocateAndWriteResult written = BinaryenModuleAllocateAndWrite(m, nullptr);
  FuelPassResult result;
  const auto* begin = static_cast<const std::uint8_t*>(written.binary);
  result.wasm.assign(begin, begin + written.binaryBytes);
  std::free(written.binary);
  if (written.sourceMap != nullptr) std::free(written.sourceMap);
  return result;
}

}  // namespace sandbox::wasmc

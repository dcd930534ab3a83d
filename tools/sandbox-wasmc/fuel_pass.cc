#include "fuel_pass.h"

#include <cstdlib>
#include <memory>
#include <string>

#include <binaryen-c.h>

namespace sandbox::wasmc {
namespace {

// Owns a BinaryenModuleRef.
struct ModuleDeleter {
  void operator()(BinaryenModuleRef m) const { BinaryenModuleDispose(m); }
};
using ModulePtr = std::unique_ptr<std::remove_pointer_t<BinaryenModuleRef>, ModuleDeleter>;

constexpr const char* kLogger = "log_execution";  // the internal name log-execution uses
constexpr const char* kFuelImport = "sandbox_fuel_exhausted";

// A `(block (call $log_execution (i32.const N)) X)` that log-execution made.
bool is_tick_sequence(BinaryenExpressionRef e) {
  if (BinaryenExpressionGetId(e) != BinaryenBlockId() || BinaryenBlockGetName(e) != nullptr ||
      BinaryenBlockGetNumChildren(e) != 2) {
    return false;
  }
  BinaryenExpressionRef first = BinaryenBlockGetChildAt(e, 0);
  return BinaryenExpressionGetId(first) == BinaryenCallId() &&
         std::string(BinaryenCallGetTarget(first)) == kLogger;
}

// log-execution ticks at function entry and again before the last expression of the body; the
// second tick only counts the way out. Remove it, so a call costs one unit (entry) plus its loop
// iterations. (Ticks before explicit `return`s stay: finding them needs a full walk.)
void drop_exit_ticks(BinaryenModuleRef m) {
  for (BinaryenIndex i = 0; i < BinaryenGetNumFunctions(m); ++i) {
    BinaryenFunctionRef f = BinaryenGetFunctionByIndex(m, i);
    if (BinaryenFunctionImportGetModule(f) != nullptr) continue;
    BinaryenExpressionRef body = BinaryenFunctionGetBody(f);
    if (body == nullptr || !is_tick_sequence(body)) continue;
    BinaryenExpressionRef original = BinaryenBlockGetChildAt(body, 1);
    if (BinaryenExpressionGetId(original) != BinaryenBlockId()) continue;
    BinaryenIndex n = BinaryenBlockGetNumChildren(original);
    if (n == 0) continue;
    BinaryenExpressionRef last = BinaryenBlockGetChildAt(original, n - 1);
    if (is_tick_sequence(last)) {
      BinaryenBlockSetChildAt(original, n - 1, BinaryenBlockGetChildAt(last, 1));
    }
  }
}

}  // namespace

FuelPassResult add_fuel_metering(std::span<const std::uint8_t> wasm, bool keep_names) {
  std::vector<char> copy(wasm.begin(), wasm.end());
  ModulePtr module(BinaryenModuleRead(copy.data(), copy.size()));
  if (!module) throw FuelPassError("binaryen could not read the module");
  BinaryenModuleRef m = module.get();
  // Modules without a target_features section read as MVP; the code we compile uses these
  // (exception handling: modules built for sandbox-wasmc --exceptions).
  BinaryenModuleSetFeatures(m, BinaryenModuleGetFeatures(m) | BinaryenFeatureMutableGlobals() |
                                   BinaryenFeatureSignExt() | BinaryenFeatureBulkMemory() |
                                   BinaryenFeatureNontrappingFPToInt() |
                                   BinaryenFeatureMultivalue() | BinaryenFeatureReferenceTypes() |
                                   BinaryenFeatureExceptionHandling());

  if (BinaryenGetFunction(m, kLogger) != nullptr || BinaryenGetExport(m, kFuelGlobal) != nullptr ||
      BinaryenGetGlobal(m, kFuelGlobal) != nullptr ||
      BinaryenGetFunction(m, kFuelImport) != nullptr) {
    throw FuelPassError(
        "module already has a 'fuel' global/export or a 'log_execution' function (already "
        "metered?)");
  }

  const char* passes[] = {"log-execution"};
  BinaryenModuleRunPasses(m, passes, 1);
  if (BinaryenGetFunction(m, kLogger) == nullptr) {
    throw FuelPassError("binaryen's log-execution pass did not add its logger");
  }
  drop_exit_ticks(m);
  BinaryenRemoveFunction(m, kLogger);

  BinaryenAddGlobal(m, kFuelGlobal, BinaryenTypeInt64(), true,
                    BinaryenConst(m, BinaryenLiteralInt64(INT64_MAX)));
  BinaryenAddGlobalExport(m, kFuelGlobal, kFuelGlobal);
  BinaryenAddFunctionImport(m, kFuelImport, kFuelImportModule, kFuelImportName, BinaryenTypeNone(),
                            BinaryenTypeNone());

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
  // Names are always written: the splitter finds the tick function by its name
  // (w2c_log_execution) to inline it into every compilation unit.
  (void)keep_names;
  BinaryenSetDebugInfo(true);
  BinaryenModuleAllocateAndWriteResult written = BinaryenModuleAllocateAndWrite(m, nullptr);
  FuelPassResult result;
  const auto* begin = static_cast<const std::uint8_t*>(written.binary);
  result.wasm.assign(begin, begin + written.binaryBytes);
  std::free(written.binary);
  if (written.sourceMap != nullptr) std::free(written.sourceMap);
  return result;
}

}  // namespace sandbox::wasmc

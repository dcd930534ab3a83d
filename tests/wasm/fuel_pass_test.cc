#include "fuel_pass.h"

#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "wasm_binary.h"

namespace sandbox::wasmc {
namespace {

std::vector<std::uint8_t> guest() {
  std::ifstream in(SANDBOX_TEST_GUEST_WASM, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(FuelPass, AddsTheFuelGlobalAndImport) {
  std::vector<std::uint8_t> input = guest();
  ASSERT_FALSE(input.empty());
  WasmModule before = read_wasm_module(input);
  WasmModule after = read_wasm_module(add_fuel_metering(input, false).wasm);
  EXPECT_EQ(after.globals.size(), before.globals.size() + 1);
  bool exported = false;
  for (const Export& e : after.exports) {
    if (e.name == "fuel" && e.kind == ExternalKind::kGlobal) {
      exported = true;
      EXPECT_EQ(after.globals[e.index].type, ValueType::kI64);
      EXPECT_TRUE(after.globals[e.index].is_mutable);
    }
  }
  EXPECT_TRUE(exported);
  bool imported = false;
  for (const Import& im : after.imports) {
    if (im.module == "sandbox" && im.name == "fuel_exhausted") {
      imported = true;
      EXPECT_TRUE(after.types[im.type_index].params.empty());
      EXPECT_TRUE(after.types[im.type_index].results.empty());
    }
  }
  EXPECT_TRUE(imported);
  // Every other export survives.
  EXPECT_EQ(after.exports.size(), before.exports.size() + 1);
}

TEST(FuelPass, RefusesToMeterTwice) {
  std::vector<std::uint8_t> once = add_fuel_metering(guest(), false).wasm;
  EXPECT_THROW(add_fuel_metering(once, false), FuelPassError);
}

}  // namespace
}  // namespace sandbox::wasmc

// A module with 2,000 functions and a 1 MiB data segment, split into 4 units with the data as
// an .incbin blob: it must behave exactly like the C it came from.
#include <gtest/gtest.h>

#include <sandbox/wasm.h>

#include "guest_many.h"

namespace sandbox::wasm {
namespace {

std::uint32_t expected_f(std::uint32_t i, std::uint32_t x) {
  std::uint32_t k = (x + i) & 1048575u;
  return x * i + (k % 16) + 1;
}

TEST(SplitModule, BehavesLikeTheSource) {
  Module m(*sandbox_wasm_module_guest_many());
  EXPECT_TRUE(m.metered());
  EXPECT_TRUE(m.import_modules().size() == 1);  // sandbox (fuel)
  auto inst = Instance::create(m, {});
  inst->set_fuel(1'000'000'000);
  EXPECT_EQ(inst->call<std::uint32_t()>("table_sum").value, 65536u * 136u);
  auto call = m.function<std::uint32_t(std::uint32_t, std::uint32_t)>("call");
  for (std::uint32_t i : {0u, 1u, 2u, 999u, 1000u, 1500u, 1999u}) {
    for (std::uint32_t x : {0u, 5u, 123456u}) {
      auto r = call(*inst, i, x);
      ASSERT_TRUE(r.ok()) << r.trap.message;
      EXPECT_EQ(r.value, expected_f(i, x)) << "f" << i << "(" << x << ")";
    }
  }
}

}  // namespace
}  // namespace sandbox::wasm

// The wasmify calls (<sandbox/wasmify.h>, docs/wasmify-abi.md#calls) on one instance of the wkv
// test guest (tests/guests/wasmify/wkv_guest.c): exports, boot, invoke, the response limit and
// responses that must be refused.
#include <memory>
#include <stdexcept>

#include <gtest/gtest.h>

#include <sandbox/wasmify.h>

#include "driver.h"
#include "embedded/guest.h"
#include "guest_abi_probe.h"
#include "wkv_guest.h"

namespace sandbox {
namespace {

const wasm::Module& wkv_module() {
  static const wasm::Module module(*sandbox_wasm_module_wkv_guest());
  return module;
}

// One instance of the wkv guest, not yet initialised, with the wasmify driver's extension-free
// configuration.
class WasmifyCalls : public ::testing::Test {
 protected:
  WasmifyCalls()
      : driver_(make_wasmify_driver(wkv_module(), wkv::make_driver())),
        guest_(embedded::GuestConfig{.module = &wkv_module(),
                                     .driver = driver_.get(),
                                     .fuel = 10'000'000,
                                     .call_timeout = std::chrono::seconds(10)},
               WasiOptions{}) {
    guest_.reset_fuel();
  }

  // _initialize, wasm_init and wkv_new("/stdlib"): the handle.
  std::int64_t boot() {
    exports_.initialize(guest_);
    const auto handle =
        exports_.invoke(guest_, exports_.method("w_0_2"), {{1, "/stdlib"}}).integer(1);
    EXPECT_TRUE(handle.has_value());
    EXPECT_NE(handle.value_or(0), 0U);
    return static_cast<std::int64_t>(handle.value_or(0));
  }

  WasmifyEval eval(std::int64_t handle, const std::string& code) {
    return wkv::make_driver().read_eval(
        exports_.invoke(guest_, exports_.method("w_0_1"), {{1, handle}, {2, code}}));
  }

  wasmify::Response raw(std::int64_t handle, std::int64_t mode) {
    return exports_.invoke(guest_, exports_.method("w_0_3"), {{1, handle}, {2, mode}});
  }

  std::shared_ptr<const EmbeddedDriver> driver_;
  WasmifyExports exports_{wkv_module()};
  embedded::Guest guest_;
};

TEST_F(WasmifyCalls, BootThenEvaluate) {
  const std::int64_t handle = boot();
  const WasmifyEval e = eval(handle, "set x 41\nincr x\nprint out\nwarn err");
  EXPECT_TRUE(e.ok);
  EXPECT_EQ(e.value, "42");
  EXPECT_EQ(e.stdout_text, "out\n");
  EXPECT_EQ(e.stderr_text, "err\n");
  // Globals persist on the handle.
  EXPECT_EQ(eval(handle, "get x").value, "42");
  const WasmifyEval failed = eval(handle, "fail ValueError no");
  EXPECT_FALSE(failed.ok);
  EXPECT_EQ(failed.error, "ValueError: no");
}

TEST_F(WasmifyCalls, InitAnswersZeroForAnotherDirectory) {
  exports_.initialize(guest_);
  EXPECT_EQ(exports_.invoke(guest_, exports_.method("w_0_2"), {{1, "/lib"}}).integer(1), 0U);
}

TEST_F(WasmifyCalls, CallsBeforeWasmInitTrap) {
  // The guest's bridge is set up by wasm_init: without it every API function traps.
  EXPECT_THROW((void)exports_.invoke(guest_, exports_.method("w_0_2"), {{1, "/stdlib"}}),
               GuestTrap);
}

TEST_F(WasmifyCalls, MemoryViewsAreTakenAgainAfterGrowth) {
  const std::int64_t handle = boot();
  const std::size_t before = guest_.instance().memory().size();
  // The guest grows its memory by 16 MiB during the call, then answers from the new pages.
  const WasmifyEval e = eval(handle, "alloc 16\nbig 100000");
  EXPECT_GT(guest_.instance().memory().size(), before + (16U << 20));
  EXPECT_EQ(e.value, std::string(100000, 'x'));
}

TEST_F(WasmifyCalls, RefusesMalformedResponses) {
  const std::int64_t handle = boot();
  try {
    (void)raw(handle, 0);
    ADD_FAILURE() << "wire type 5 accepted";
  } catch (const wasmify::CodecError& e) {
    EXPECT_EQ(e.kind(), wasmify::CodecErrorKind::kUnsupportedField);
  }
  try {
    (void)raw(handle, 1);
    ADD_FAILURE() << "a truncated response accepted";
  } catch (const wasmify::CodecError& e) {
    EXPECT_EQ(e.kind(), wasmify::CodecErrorKind::kTruncated);
  }
}

TEST_F(WasmifyCalls, ResponseLimit) {
  const std::int64_t handle = boot();
  // 131,072 bytes is the limit: a 100,000-byte value fits (above), 131,073 raw bytes do not.
  try {
    (void)raw(handle, 2);
    ADD_FAILURE() << "a response over the limit was read";
  } catch (const ExecutionLimitError& e) {
    EXPECT_STREQ(e.what(), "Interpreter response limit exceeded");
  }
}

TEST_F(WasmifyCalls, ResponseOutsideTheMemory) {
  const std::int64_t handle = boot();
  EXPECT_THROW((void)raw(handle, 3), std::runtime_error);
}

TEST_F(WasmifyCalls, EmptyResponse) {
  const std::int64_t handle = boot();
  EXPECT_TRUE(raw(handle, 4).fields.empty());
}

TEST_F(WasmifyCalls, NegativeValuesAreRefusedBeforeTheCall) {
  const std::int64_t handle = boot();
  try {
    (void)raw(handle, -1);
    ADD_FAILURE() << "a negative value was encoded";
  } catch (const wasmify::CodecError& e) {
    EXPECT_EQ(e.kind(), wasmify::CodecErrorKind::kNegativeValue);
  }
  // Nothing was called: the instance is still usable.
  EXPECT_EQ(eval(handle, "value ok").value, "ok");
}

TEST(WasmifyExportsCheck, RefusesModulesWithoutTheBridge) {
  // The ABI probe implements our own ABI: no wasm_init, wasm_alloc, wasm_free.
  static const wasm::Module probe(*sandbox_wasm_module_guest_abi_probe());
  EXPECT_THROW(WasmifyExports{probe}, wasm::WasmError);
  const WasmifyExports exports(wkv_module());
  EXPECT_THROW((void)exports.method("w_0_9"), wasm::WasmError);       // missing
  EXPECT_THROW((void)exports.method("wasm_alloc"), wasm::WasmError);  // not (i32, i32) -> i64
}

TEST(WasmifyDriverCheck, RefusesIncompleteDrivers) {
  WasmifyDriver driver = wkv::make_driver();
  driver.init_method.clear();
  EXPECT_THROW((void)make_wasmify_driver(wkv_module(), driver), std::invalid_argument);
  driver = wkv::make_driver();
  driver.read_eval = {};
  EXPECT_THROW((void)make_wasmify_driver(wkv_module(), driver), std::invalid_argument);
  driver = wkv::make_driver();
  driver.eval_method = "w_0_7";
  EXPECT_THROW((void)make_wasmify_driver(wkv_module(), driver), wasm::WasmError);
  EmbeddedLanguage language{.language = "wkv", .engine_name = "wkv"};
  language.driver = make_wasmify_driver(wkv_module(), wkv::make_driver());
  EXPECT_THROW((void)make_wasmify_engine(wkv_module(), language, wkv::make_driver()),
               std::invalid_argument);
}

TEST(WasmifyBuildId, FollowsTheDriver) {
  const Engine a = make_wasmify_engine(wkv_module(), {.language = "wkv", .engine_name = "wkv"},
                                       wkv::make_driver());
  const Engine same = make_wasmify_engine(wkv_module(), {.language = "wkv", .engine_name = "wkv"},
                                          wkv::make_driver());
  WasmifyDriver other_boot = wkv::make_driver();
  other_boot.boot_script = "helper\nset booted 1";
  const Engine b =
      make_wasmify_engine(wkv_module(), {.language = "wkv", .engine_name = "wkv"}, other_boot);
  EXPECT_EQ(a.build, same.build);
  EXPECT_NE(a.build, b.build);
  EXPECT_NE(a.build, std::string(wkv_module().wasm_sha256()));
}

}  // namespace
}  // namespace sandbox

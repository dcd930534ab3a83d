#include "wkv_engine.h"

#include <chrono>

#include <sandbox/wasmify.h>

#include "driver.h"
#include "wkv_guest.h"

namespace sandbox::engines {

Engine make_wkv_engine() {
  static const wasm::Module module(*sandbox_wasm_module_wkv_guest());
  return make_wasmify_engine(module,
                             EmbeddedLanguage{
                                 .language = "wkv",
                                 .engine_name = "wkv 1.0 / wasmify",
                                 .limits = wasm_engine_limits(kWkvFuel, kWkvMemoryBytes),
                                 .call_timeout = std::chrono::seconds(10),
                             },
                             wkv::make_driver());
}

}  // namespace sandbox::engines

#include "kv_engine.h"

#include <sandbox/embedded.h>

#include "kv_guest.h"

namespace sandbox::engines {

Engine make_kv_engine() { return make_kv_engine_with(kKvFuel, std::chrono::seconds(10)); }

Engine make_kv_engine_with(std::uint64_t fuel, std::chrono::milliseconds call_timeout) {
  static const wasm::Module module(*sandbox_wasm_module_kv_guest());
  return make_embedded_engine(module, EmbeddedLanguage{
                                          .language = "kv",
                                          .engine_name = "kv 1.0 / sandbox-workers",
                                          .limits = wasm_engine_limits(fuel, kKvMemoryBytes),
                                          .call_timeout = call_timeout,
                                      });
}

}  // namespace sandbox::engines

#include "kv_engine.h"

#include <sandbox/embedded.h>

#include "kv_guest.h"

namespace sandbox::engines {

Engine make_kv_engine() {
  static const wasm::Module module(*sandbox_wasm_module_kv_guest());
  return make_embedded_engine(module, EmbeddedLanguage{
                                          .language = "kv",
                                          .engine_name = "kv 1.0 / sandbox-workers",
                                          .limits = wasm_engine_limits(kKvFuel, kKvMemoryBytes),
                                          .call_timeout = std::chrono::seconds(10),
                                      });
}

}  // namespace sandbox::engines

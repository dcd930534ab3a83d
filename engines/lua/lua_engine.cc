#include "lua_engine.h"

#include <sandbox/embedded.h>

#include "lua_guest.h"

namespace sandbox::engines {

Engine make_lua_engine() {
  static const wasm::Module module(*sandbox_wasm_module_lua_guest());
  return make_embedded_engine(module, EmbeddedLanguage{
                                          .language = "lua",
                                          .engine_name = "Lua 5.4.9 / sandbox-workers",
                                          .limits = wasm_engine_limits(kLuaFuel, kLuaMemoryBytes),
                                      });
}

}  // namespace sandbox::engines

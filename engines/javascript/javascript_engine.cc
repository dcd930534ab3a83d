#include "javascript_engine.h"

#include <cstdint>
#include <span>

#include <sandbox/embedded.h>
#include <sandbox/wasi.h>

#include "javascript_guest.h"

// The /stdlib archive (typescript.js, rewrite.js), linked in by
// sandbox_engine_stdlib_archive().
extern "C" const std::uint8_t sandbox_javascript_stdlib_start[];
extern "C" const std::uint8_t sandbox_javascript_stdlib_end[];

namespace sandbox::engines {

Engine make_javascript_engine() {
  static const wasm::Module module(*sandbox_wasm_module_javascript_guest());
  static const std::shared_ptr<const StdlibTree> stdlib =
      StdlibTree::from_zip(std::span<const std::uint8_t>(sandbox_javascript_stdlib_start,
                                                         sandbox_javascript_stdlib_end));
  return make_embedded_engine(
      module, EmbeddedLanguage{
                  .language = "javascript",
                  .engine_name = "QuickJS-ng 0.17.0 / sandbox-workers",
                  .limits = wasm_engine_limits(kJavaScriptFuel, kJavaScriptMemoryBytes),
                  .stdlib = stdlib,
              });
}

}  // namespace sandbox::engines

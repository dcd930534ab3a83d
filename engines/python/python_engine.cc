#include "python_engine.h"

#include <cstdint>
#include <span>

#include <sandbox/embedded.h>
#include <sandbox/wasi.h>

#include "python_guest.h"

// The /stdlib archive (python311.zip), linked in by sandbox_engine_stdlib_archive().
extern "C" const std::uint8_t sandbox_python_stdlib_start[];
extern "C" const std::uint8_t sandbox_python_stdlib_end[];

namespace sandbox::engines {

Engine make_python_engine() {
  static const wasm::Module module(*sandbox_wasm_module_python_guest());
  static const std::shared_ptr<const StdlibTree> stdlib = StdlibTree::from_zip(
      std::span<const std::uint8_t>(sandbox_python_stdlib_start, sandbox_python_stdlib_end));
  return make_embedded_engine(module,
                              EmbeddedLanguage{
                                  .language = "python",
                                  .engine_name = "CPython 3.11.2 / sandbox-workers",
                                  .limits = wasm_engine_limits(kPythonFuel, kPythonMemoryBytes),
                                  .stdlib = stdlib,
                              });
}

}  // namespace sandbox::engines

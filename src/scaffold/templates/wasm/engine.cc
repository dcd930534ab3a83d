// {{project}}'s engine: the kit's embedded session host (<sandbox/embedded.h>) around the guest
// wasm/{{project}}.wasm, a WASI reactor implementing the embedded ABI (alloc, dealloc,
// session_init, eval, result_ptr, result_len; <sandbox/guest/sandbox_guest.h>). The host gives
// it stateless runs, code contexts kept as linear-memory snapshots, fuel, a memory cap, a
// deadline per call, captured stdout/stderr and a /workspace.
#include "engine.h"

#include <sandbox/embedded.h>

#include <chrono>

#include "{{project}}_guest.h"

namespace {{project}} {

sandbox::Engine make_engine() {
  static const sandbox::wasm::Module module(*sandbox_wasm_module_{{project}}_guest());
  return sandbox::make_embedded_engine(
      module, sandbox::EmbeddedLanguage{
                  .language = "{{project}}",
                  .engine_name = "{{project}} 0.1 / sandbox-workers",
                  // .build is left empty: the sha256 of the module, so a snapshot taken by
                  // another build of the guest boots fresh instead of being restored.
                  .limits = {.fuel = 100'000'000,
                             .memory_bytes = 64ull << 20,  // as MAX_MEMORY in CMakeLists.txt
                             .code_bytes = 65'536,
                             .request_bytes = 98'304},
                  .call_timeout = std::chrono::seconds(10),
              });
}

}  // namespace {{project}}

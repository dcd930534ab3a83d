// {{project}}'s engine: the kit's wasmify driver (<sandbox/wasmify.h>) around the guest
// wasm/{{project}}.wasm, a WASI reactor built for the wasmify ABI (wasm_init, wasm_alloc,
// wasm_free and one w_0_<N> per API function of its embedding header). The kit gives it
// stateless runs, code contexts kept as linear-memory snapshots, fuel, a memory cap, a deadline
// per call, captured stdout/stderr and a /workspace. What is left to you is the small driver of
// src/driver.cc: which API functions create the interpreter and evaluate code, and how one
// request is phrased as a script of your language and its answer read (the kit's guide, "The
// wasmify ABI").
#include "engine.h"

#include <sandbox/wasmify.h>

#include <chrono>

#include "driver.h"
#include "{{project}}_guest.h"

namespace {{project}} {

sandbox::Engine make_engine() {
  static const sandbox::wasm::Module module(*sandbox_wasm_module_{{project}}_guest());
  return sandbox::make_wasmify_engine(
      module,
      sandbox::EmbeddedLanguage{
          .language = "{{project}}",
          .engine_name = "{{project}} 0.1 / sandbox-workers",
          // .build is left empty: the sha256 of the module and of the driver (its method ids,
          // scripts and fingerprint), so a snapshot taken by another build boots fresh instead
          // of being restored.
          .limits = {.fuel = 100'000'000,
                     .memory_bytes = 64ull << 20,  // as MAX_MEMORY in CMakeLists.txt
                     .code_bytes = 65'536,
                     .request_bytes = 98'304},
          .call_timeout = std::chrono::seconds(10),
      },
      make_driver());
}

}  // namespace {{project}}

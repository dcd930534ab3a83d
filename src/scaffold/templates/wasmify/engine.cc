// {{project}}'s engine: the kit's wasmify driver (<sandbox/wasmify.h>) around the guest
// wasm/{{project}}.wasm, a WASI reactor built for the wasmify ABI (wasm_init, wasm_alloc,
// wasm_free and one w_0_<N> per API function of its embedding header). The kit gives it
// stateless runs, code contexts kept as linear-memory snapshots, fuel, a memory cap, a deadline
// per call, captured stdout/stderr and a /workspace. What is left to you is the small driver
// below: which API functions create the interpreter and evaluate code, and how one request is
// phrased as a script of your language and its answer read (the kit's guide, "The wasmify ABI").
//
// The module's API functions: {{methods}}. N is the position of the function in the
// alphabetically sorted list of the functions its embedding header exports.
#include "engine.h"

#include <sandbox/wasmify.h>

#include <chrono>
#include <stdexcept>
#include <string>

#include "{{project}}_guest.h"

namespace {{project}} {
namespace {

// The eval method's response: field 1 is the function's return value. This reads it as the text
// of the script's value; replace it with your interpreter's answer (a JSON object, a binary
// record) to report its stdout, its stderr and its errors (ok = false, error = the message).
sandbox::WasmifyEval read_eval(const sandbox::wasmify::Response& response) {
  const auto value = response.bytes(1);
  if (!value) throw std::runtime_error("{{project}}: the eval method answered no string");
  sandbox::WasmifyEval eval;
  eval.value = std::string(*value);
  return eval;
}

// One request as a script of your language. Here: the code as it is. A complete driver calls a
// helper its boot script defines, passing the code, request.cwd and request.env, which catches
// the code's errors and answers the JSON envelope {"results": [...], "error": {...}, "cwd": ...}
// (then drop read_execute below: that envelope is the default).
std::string phrase_execute(const sandbox::DriverRequest& request) {
  return std::string(request.code);
}

// The script's value as the reply: its text as the one result.
sandbox::GuestReply read_execute(std::string_view value) {
  sandbox::GuestReply reply;
  if (!value.empty()) reply.results.push_back(sandbox::ResultEntry::of_text(std::string(value)));
  return reply;
}

}  // namespace

sandbox::Engine make_engine() {
  static const sandbox::wasm::Module module(*sandbox_wasm_module_{{project}}_guest());
  return sandbox::make_wasmify_engine(
      module,
      sandbox::EmbeddedLanguage{
          .language = "{{project}}",
          .engine_name = "{{project}} 0.1 / sandbox-workers",
          // .build is left empty: the sha256 of the module and of the driver below, so a
          // snapshot taken by another build boots fresh instead of being restored.
          .limits = {.fuel = 100'000'000,
                     .memory_bytes = 64ull << 20,  // as MAX_MEMORY in CMakeLists.txt
                     .code_bytes = 65'536,
                     .request_bytes = 98'304},
          .call_timeout = std::chrono::seconds(10),
      },
      sandbox::WasmifyDriver{
          // Fill these in: the w_0_<N> of the function that creates the interpreter (called
          // with the standard library's directory, "/stdlib"; it answers the handle) and of
          // the one that evaluates a script (called with the handle and the source). Until
          // then, making the engine fails with "A wasmify driver needs its init and eval
          // method ids".
          .init_method = "",
          .eval_method = "",
          .read_eval = read_eval,
          .phrase_execute = phrase_execute,
          .read_execute = read_execute,
          // Evaluated once when the interpreter's image is made (define your helpers here),
          // and on every copy of the image or of a snapshot (re-seed random generators).
          .boot_script = "",
          .after_copy_script = "",
          .fingerprint = "{{project}} driver 1",  // change it when the driver's code changes
      });
}

}  // namespace {{project}}

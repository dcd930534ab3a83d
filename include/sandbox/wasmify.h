// The wasmify session host (docs/wasmify-abi.md): runs an interpreter built for goccy's wasmify
// ABI (a WASI reactor exporting wasm_init, wasm_alloc, wasm_free and one w_0_<N> per API
// function, called with protobuf-subset requests) as a complete sandbox::Engine, on the same
// machinery as our own embedded ABI (<sandbox/embedded.h>): fuel, the memory cap, the deadline,
// the post-initialisation image, delta snapshots, worker processes.
//
// The engine author supplies a WasmifyDriver: the init and eval method ids, the scripts that
// boot a session (and re-seed a copy), how one execute is phrased as a script and how its
// answer is read. Everything else comes from the kit:
//
//   sandbox::Engine engine = sandbox::make_wasmify_engine(
//       module, {.language = "mini", .engine_name = "mini 1.0 / wasmify", .limits = limits},
//       sandbox::WasmifyDriver{.init_method = "w_0_2", .eval_method = "w_0_1",
//                              .read_eval = read_mini_eval, .phrase_execute = phrase_mini});
//
// Lifecycle (docs/wasmify-abi.md#boot-image-and-restore): the image is made by `_initialize`,
// `wasm_init`, the init method with {1: "/stdlib"} (field 1 of its answer is the interpreter's
// handle; absent or 0 fails with "Interpreter initialization failed"), the boot script and one
// after-copy script. Every stateless run and every new context is a copy of that image with
// its handle; a restore takes the handle from the snapshot and runs no initialisation; every
// copy runs the after-copy script first. Sessions follow the embedded host's state machine
// (<sandbox/embedded.h>): any failure is an outcome and invalidates the session; no snapshot
// while the guest holds open descriptors.
//
// Thread-safety: WasmifyExports and the driver are immutable after construction and may be
// used from any number of threads; an EmbeddedGuest is used by one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sandbox/embedded.h>
#include <sandbox/engine.h>
#include <sandbox/wasm.h>
#include <sandbox/wasmify_codec.h>

namespace sandbox {

// The largest response the host reads from a wasmify call (docs/wasmify-abi.md#calls, C4):
// checked after the call, before the response is read; a larger one is refused with
// ExecutionLimitError("Interpreter response limit exceeded").
inline constexpr std::uint32_t kWasmifyMaxResponseBytes = 131'072;

// The directory the init method is given: the language's read-only tree (docs/guest-abi.md,
// G2).
inline constexpr std::string_view kWasmifyStdlibDir = "/stdlib";

// One API function of a wasmify module: `w_0_<N>(ptr, len) -> i64`.
using WasmifyMethod = wasm::Function<std::uint64_t(std::uint32_t, std::uint32_t)>;

// The exports of a wasmify module, resolved and signature-checked once (docs/wasmify-abi.md,
// X2).
class WasmifyExports {
 public:
  // Throws wasm::WasmError when the module has no memory, or lacks wasm_init, wasm_alloc or
  // wasm_free, or has one of them (or _initialize) with another signature.
  explicit WasmifyExports(const wasm::Module& module);

  // The API function `name` ("w_0_5"). Throws wasm::WasmError when it is missing or is not
  // (i32, i32) -> i64.
  WasmifyMethod method(std::string_view name) const;

  // `_initialize` (when exported), then `wasm_init`: once, on a fresh instance. A trap throws
  // (EmbeddedGuest::call).
  void initialize(EmbeddedGuest& guest) const;

  // One call (docs/wasmify-abi.md#calls, C1-C7): encodes `fields`, writes them into a buffer
  // from wasm_alloc, calls `method`, frees the request, reads and decodes the response and
  // frees it. Every view of linear memory is taken again after each guest call. Throws
  // wasmify::CodecError for a request that cannot be encoded (nothing is called then) or a
  // response that does not decode; ExecutionLimitError for a response over
  // kWasmifyMaxResponseBytes (its buffer is not freed: the instance is dropped after any
  // failure); std::runtime_error when wasm_alloc fails or a buffer lies outside the memory;
  // what EmbeddedGuest::call throws for a trap. After any throw but the encoder's, the instance
  // must not be used again.
  wasmify::Response invoke(EmbeddedGuest& guest, const WasmifyMethod& method,
                           const std::vector<wasmify::RequestField>& fields) const;

 private:
  wasm::Module module_;
  wasm::Function<std::uint32_t(std::uint32_t)> alloc_;
  wasm::Function<void(std::uint32_t)> free_;
  wasm::Function<void()> wasm_init_;
  std::optional<wasm::Function<void()>> initialize_;
};

// What one evaluation returned, as the driver's read_eval found it in the eval method's
// response.
struct WasmifyEval {
  bool ok = true;           // false: the interpreter failed to evaluate the script
  std::string value;        // the script's value (its text), when ok
  std::string error;        // the interpreter's error text, when not ok
  std::string stdout_text;  // what the script wrote to its stdout, if the interpreter keeps it
  std::string stderr_text;  // and to its stderr
};

// The per-language part (docs/wasmify-abi.md#the-driver). A value: copy it freely.
struct WasmifyDriver {
  // The API function that creates the interpreter: called once with {1: "/stdlib"}, its
  // response's field 1 is the handle.
  std::string init_method;
  // The API function that evaluates a script: called with {1: handle, 2: source}.
  std::string eval_method;
  // Reads the eval method's response. Throws (std::runtime_error) when the response is not what
  // the language returns; the call then fails.
  std::function<WasmifyEval(const wasmify::Response&)> read_eval;
  // The script that runs one request: its code, cwd ("/workspace" in stateless runs, where the
  // workspace refuses every access) and environment (also the guest's WASI environment), for
  // the helper the boot script defined. Its value is read by read_execute.
  std::function<std::string(const DriverRequest&)> phrase_execute;
  // Reads the value of phrase_execute's script into a reply (status 0 or 1). Throws
  // std::runtime_error for a value it cannot read. Empty: the value is the JSON envelope
  // {results?, error?, cwd?} of our own ABI (parse_guest_reply; status 1 when it has an error).
  std::function<GuestReply(std::string_view value)> read_execute = {};
  // Evaluated once when the image is made, after the init method (e.g. defines the helper
  // phrase_execute calls). Empty: nothing.
  std::string boot_script = {};
  // Evaluated on every copy of the image or of a snapshot before its first execute (re-seed
  // random generators), and once at the end of the boot. Empty: nothing.
  std::string after_copy_script = {};
  // Identifies anything else the driver's behaviour depends on (the version of the code behind
  // read_eval, phrase_execute and read_execute): part of the build id, with the method ids and
  // both scripts.
  std::string fingerprint = {};
};

// The EmbeddedDriver for `driver` (give it to EmbeddedLanguage::driver). Resolves the exports
// now: throws wasm::WasmError as WasmifyExports and WasmifyExports::method do, and
// std::invalid_argument when a method id is empty or read_eval or phrase_execute is missing.
std::shared_ptr<const EmbeddedDriver> make_wasmify_driver(const wasm::Module& module,
                                                          WasmifyDriver driver);

// make_embedded_engine(module, language) with language.driver = make_wasmify_driver(module,
// driver). Throws what both throw, and std::invalid_argument when language already has a
// driver.
Engine make_wasmify_engine(const wasm::Module& module, EmbeddedLanguage language,
                           WasmifyDriver driver);

}  // namespace sandbox

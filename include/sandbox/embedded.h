// The embedded-interpreter session host: our counterpart of upstream's `wasmify` host
// (upstream-engine-host.md §5), for interpreters compiled as WASI reactors that implement the
// ABI of engines/common/sandbox_guest.h:
//
//   _initialize()                 wasi-libc constructors (fresh instances only)
//   alloc(n) -> ptr, dealloc(ptr) the host writes each request into guest memory
//   session_init() -> status      creates the interpreter (0 ok)
//   eval(ptr, len) -> status      0 ok, 1 language error, 2 internal error
//   result_ptr(), result_len()    the JSON envelope {results?, error?, cwd?} (or, for status 2
//                                 and a failed session_init, a plain message)
//   after_restore()               optional, called once after a snapshot restore
//
// A language supplies its compiled module, its identity and limits, its /stdlib tree and a few
// optional hooks; make_embedded_engine() turns that into a complete sandbox::Engine:
//
//   sandbox::Engine engine = sandbox::make_embedded_engine(
//       sandbox::wasm::Module(*sandbox_wasm_module_lua()),
//       {.language = "lua", .engine_name = "Lua 5.4.4 / sandbox-workers",
//        .limits = {.fuel = 50'000'000, .memory_bytes = 64 << 20, .code_bytes = 65'536,
//                   .request_bytes = 98'304}});
//
// run() (stateless): a fresh instance per call with the request's env vars as its WASI
// environment and no /workspace; fuel covers _initialize, session_init, after_init and the
// eval. A guest language error comes back in the outcome; a trap is thrown (a limit as
// ExecutionLimitError, anything else as std::runtime_error), so the kit reports it with empty
// logs, as upstream does.
//
// sessions: boot() = a fresh instance with /workspace mounted, then _initialize, session_init
// and after_init; restore() = a fresh instance WITHOUT _initialize or session_init, memory grown
// and filled from the SnapshotSource, the saved mutable globals written back (they travel in
// the snapshot's `extra` as {"globals": "<base64>"}), then after_restore if exported.
//
// Session instance state machine (EmbeddedSession, src/embedded/session.h):
//
//     boot() / restore() ──► kIdle ──execute()──► (eval running) ──returns──► kIdle
//                              │                        │
//                              │  close()               │ trap (fuel, deadline, output limit,
//                              ▼                        ▼ proc_exit, memory fault), status 2,
//                           kInvalid ◄──────────────────┘ malformed reply, result limit,
//                           (final)                       any host exception
//
//  1. execute() resets the fuel to limits.fuel and clears the captured logs first, so usage and
//     logs are per call.
//  2. execute() never throws for the guest's doing: every failure in the right-hand box becomes
//     an outcome whose error is named "ExecutionLimitError" (fuel, deadline, output, result
//     limit) or "EngineError" (anything else), with the logs captured so far, no results, the
//     session's cwd, and usage (fuel falls back to {limit, limit} when exhausted) — and the
//     session becomes kInvalid (§5.7). Only execute() on an invalid session throws (a host bug).
//  3. can_snapshot() ⇔ kIdle and the guest holds no descriptor beyond the preopens.
//  4. snapshot() (requires can_snapshot()) returns handle 0, extra {"globals": ...} and a view of
//     the live linear memory, valid until the next execute() or close().
//  5. cwd: a non-empty cwd in the reply that names a directory of the workspace becomes the
//     session's cwd (normalized); any other reported cwd resets it to /workspace.
//
// Results: a reply's results serialized as JSON over 65,536 bytes are refused with
// ExecutionLimitError "Result limit exceeded" (checked after the eval, before post_process).
// Replies larger than 1 MiB are refused the same way without being parsed.
//
// Thread-safety: the Engine's run() may be called from many threads at once (each call owns
// its instance); hooks must therefore be safe to call concurrently. A session is used by one
// thread at a time.
#pragma once

#include <sandbox/engine.h>
#include <sandbox/wasi.h>
#include <sandbox/wasm.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sandbox {

// A parsed eval reply.
struct GuestReply {
  std::uint32_t status = 0;  // 0 ok, 1 language error
  std::vector<ResultEntry> results;
  std::optional<ExecutionError> error;
  std::string cwd;  // as reported ("" when absent)
};

// The live guest as the language hooks see it.
class EmbeddedGuest {
 public:
  virtual ~EmbeddedGuest() = default;
  // Evaluates `code` (with the current cwd, no env records). A trap or status 2 throws
  // (ExecutionLimitError for limits, std::runtime_error otherwise); a language error comes back
  // in the reply (status 1).
  virtual GuestReply eval(std::string_view code) = 0;
  virtual WasiHost& wasi() = 0;
  virtual wasm::Instance& instance() = 0;
};

// What a language supplies.
struct EmbeddedLanguage {
  std::string language;
  std::string engine_name;
  // The engine's build id; empty = the module's wasm_sha256().
  std::string build = {};
  // fuel: budget per run / per session execute (0 = not metered); memory_bytes: the linear
  // memory cap (0 = the module's declared maximum); code_bytes/request_bytes are reported.
  EngineLimits limits = {};
  // Mounted read-only at /stdlib; null = an empty directory.
  std::shared_ptr<const StdlibTree> stdlib = nullptr;
  // Wall-clock limit of each guest call (zero = none): "Execution time limit exceeded".
  std::chrono::nanoseconds call_timeout = std::chrono::seconds(30);
  // Runs on a fresh instance after session_init (run() and boot(), never after a restore:
  // whatever it sets up is part of the snapshot), e.g. to evaluate a prelude. Throwing fails
  // the run (EngineError) or the boot.
  std::function<void(EmbeddedGuest&)> after_init = {};
  // Adjusts every successful outcome (run and execute) after the limits are checked.
  std::function<void(EngineOutcome&)> post_process = {};
  // Keeps up to this many freed linear memories for reuse by later instances (0 = none).
  std::size_t pooled_memories = 8;
};

// Builds the Engine. Throws wasm::WasmError when the module lacks one of the required exports
// (alloc, dealloc, session_init, eval, result_ptr, result_len) or has one with a different
// signature, and std::invalid_argument when language or engine_name is empty.
Engine make_embedded_engine(const wasm::Module& module, EmbeddedLanguage language);

}  // namespace sandbox

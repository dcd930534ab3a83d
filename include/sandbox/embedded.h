// The embedded-interpreter session host (docs/guest-abi.md#embedded-abi). It turns an interpreter
// compiled to a WASI module into a complete sandbox::Engine (stateless runs and sessions), and
// starts every run and every new context from a post-initialisation image of that interpreter
// instead of running its start-up again.
//
// The module speaks either
//  * OUR reactor ABI (engines/common/sandbox_guest.h) — the built-in driver:
//
//      _initialize()                 wasi-libc constructors (once, when the image is made)
//      alloc(n) -> ptr, dealloc(ptr) the host writes each request into guest memory
//      session_init() -> status      creates the interpreter (0 ok)
//      eval(ptr, len) -> status      0 ok, 1 language error, 2 internal error
//      result_ptr(), result_len()    the JSON envelope {results?, error?, cwd?} (or, for status 2
//                                    and a failed session_init, a plain message)
//      after_restore()               optional: called on every copy of the image or of a
//                                    snapshot before its first eval (re-seeds random
//                                    generators), and once at the end of the boot that makes
//                                    the image (so what it initialises lazily is in the image)
//
//    Each eval gets one request: records `tag:u8 len:u32le bytes`, 'c' the code, 'w' the cwd,
//    one 'e' "NAME=VALUE" per env var of the request (the guest applies them to its environment
//    for that call: the image is made with an empty environment);
//  * or its own exports, through an EmbeddedDriver the language supplies (Ruby's ruby.wasm,
//    zeroperl): EmbeddedLanguage::driver. The wasmify ABI of upstream's Python and Perl modules
//    is one such driver, in the kit: <sandbox/wasmify.h> (docs/wasmify-abi.md).
//
//   sandbox::Engine engine = sandbox::make_embedded_engine(
//       sandbox::wasm::Module(*sandbox_wasm_module_lua()),
//       {.language = "lua", .engine_name = "Lua 5.4.9 / sandbox-workers",
//        .limits = {.fuel = 50'000'000, .memory_bytes = 64 << 20, .code_bytes = 65'536,
//                   .request_bytes = 98'304}});
//
// The post-initialisation image. The first run() or boot() of an engine instantiates the module
// once, runs the driver's boot (built-in: `_initialize`, session_init, after_init, one warm-up
// after_restore) under boot_fuel and boot_timeout, and keeps the linear memory (only the pages
// that differ from a freshly instantiated one) and the mutable globals. Lazy and thread-safe; a
// failed boot is not kept (it throws to its caller, and the next run or boot tries again). Every
// guest, stateless or session, has the same WASI layout, because the interpreter's C library
// records the preopens in its memory during boot: fd 3 /stdlib (the language's tree), fd 4 /dev,
// fd 5 /workspace. The image is made with an empty, enabled scratch /workspace and an empty
// environment. Boot should also initialise whatever the first request of a copy would initialise
// lazily (a warm-up): a copy whose memory grew cannot be reused (below).
//
// run() (stateless): an instance in the image's state whose /workspace is an empty scratch tree
// that is disabled (every file operation there answers EACCES: a stateless run has no
// workspace), with the request's env vars as its WASI environment (and, for the built-in ABI, as
// 'e' records) and /workspace as the cwd. Fuel (limits.fuel) covers the re-seed (after_copy) and
// the request. A guest language error comes back in the outcome; a trap is thrown (a limit as
// ExecutionLimitError, anything else as std::runtime_error or its subclass GuestTrap), so the kit
// reports it with empty logs, as upstream does. After a successful run the instance is reset to
// the image and kept for a later run (up to idle_instances); a caller that sets
// ExecutionRequest::defer is handed that reset, to do after the outcome. A reset is refused,
// and the instance dropped, whenever it may hold state the image does not describe: it trapped
// or exited, its memory grew, it holds open files or extension handles, or it hit the output
// limit. Stateless runs therefore never see anything of an earlier run. (The modules used here
// have no reference types: their tables cannot change. The WASI host's fixed descriptors are put
// back and its numbering starts again at fd_base().)
//
// sessions: boot() = an instance in the image's state (an idle one when one is kept, see below)
// with the context's /workspace mounted, then after_copy; restore() = memory grown and filled
// from the SnapshotSource, the saved mutable globals written back (they travel in the
// snapshot's `extra` as {"globals": "<base64>"}, and are required), then after_copy. A snapshot
// stored as a delta from the engine's image is restored into an instance in the image's state
// (an idle one when one is kept) by writing the delta's pages; any other snapshot into a new
// instance made without its data segments (pages absent from it stay zero). after_copy runs
// under limits.fuel outside any execute's usage. Write tracking starts right after the image or
// snapshot is in place, so snapshot() reports the pages written since. Sessions share the idle
// instances of stateless runs: a session that ends without having failed gives its instance
// back (reset to the image as after a run, or dropped when the reset refuses it), with the
// context's /workspace unmounted and the environment as made, so the next run or session sees
// nothing of it (docs/snapshot-format.md#restoring-into-an-idle-instance).
//
// Session instance state machine (src/embedded/session.h):
//
//     boot() / restore() ──► kIdle ──execute()──► (driver running) ──returns──► kIdle
//                              │                        │
//                              │  close()               │ trap (fuel, deadline, output limit,
//                              ▼                        ▼ proc_exit, memory fault, refused
//                           kInvalid ◄──────────────────┘ import), status 2, malformed reply,
//                           (final)                       result limit, extension not empty,
//                                                         any host exception
//
//  1. execute() resets the fuel to limits.fuel and clears the captured logs first, so usage and
//     logs are per call.
//  2. execute() never throws for the guest's doing: every failure in the right-hand box becomes
//     an outcome whose error is named "ExecutionLimitError" (fuel, deadline, output, result
//     limit) or "EngineError" (anything else), with the logs captured so far, no results, the
//     session's cwd, and usage (fuel falls back to {limit, limit} when exhausted) — and the
//     session becomes kInvalid (docs/guest-abi.md#session-states). Only execute() on an
//     invalid session throws (a host bug).
//  3. can_snapshot() ⇔ kIdle, the instance is ready, the guest holds no descriptor beyond the
//     preopens, and the driver's extension is empty.
//  4. snapshot() (requires can_snapshot()) returns the guest's handle() (0 but for drivers that
//     keep one, such as wasmify), extra {"globals": ...}, a view of the live linear memory valid
//     until the next execute() or close(), and, when write tracking is available, the pages
//     written since boot/restore or the previous snapshot().
//  5. cwd: a non-empty cwd in the reply that names a directory of the workspace becomes the
//     session's cwd (normalized); any other reported cwd resets it to /workspace.
//
// Results: a reply's results serialized as JSON over 65,536 bytes are refused with
// ExecutionLimitError "Result limit exceeded" (checked after the call, before post_process).
// Replies larger than 1 MiB are refused the same way without being parsed.
//
// Build id (Engine::build; a snapshot taken with another build id boots fresh instead of being
// restored): EmbeddedLanguage::build when set; otherwise, when there is a fingerprint (the
// driver's fingerprint(), or EmbeddedLanguage::fingerprint for the built-in ABI), the hex sha256
// of "<module sha256>\n<fingerprint>"; otherwise the module's wasm_sha256(). Whatever boot puts
// into the image beyond the module (a prelude) must be part of the fingerprint.
//
// Thread-safety: the Engine's run() may be called from many threads at once (each call owns
// its instance); hooks and drivers must therefore be safe to call concurrently (drivers are
// immutable after construction). A session is used by one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <sandbox/engine.h>
#include <sandbox/wasi.h>
#include <sandbox/wasm.h>

namespace sandbox {

// A parsed reply of one request.
struct GuestReply {
  std::uint32_t status = 0;  // 0 ok, 1 language error
  std::vector<ResultEntry> results;
  std::optional<ExecutionError> error;
  std::string cwd;  // as reported ("" when absent)
};

// The largest reply the host reads from guest memory; drivers refuse larger ones with
// ExecutionLimitError("Result limit exceeded") before reading them.
inline constexpr std::uint32_t kMaxGuestReplyBytes = 1 << 20;

// Parses the JSON envelope {results?, error?, cwd?} of a status 0/1 reply (at most one result,
// each {"text": ...} or {"json": ...}; error {name, message, traceback?, lineNumber?}). Invalid
// UTF-8 is replaced first. A status 1 reply without an error gets {name "Error", message
// "Unknown error"}. Throws std::runtime_error("Malformed interpreter response: ...") otherwise.
[[nodiscard]] GuestReply parse_guest_reply(std::uint32_t status, std::string_view bytes);

// A guest call ended in a trap that is not a resource limit (an unsupported import, proc_exit,
// a memory fault, ...). The instance is invalid, or (proc_exit) must not be used again.
class GuestTrap : public std::runtime_error {
 public:
  GuestTrap(wasm::Trap trap, const std::string& message)
      : std::runtime_error(message), trap_(std::move(trap)) {}
  const wasm::Trap& trap() const { return trap_; }

 private:
  wasm::Trap trap_;
};

// Host-side state behind imports other than WASI (e.g. Ruby's canonical-ABI handle table), one
// per instance, made by EmbeddedDriver::make_extension().
class GuestExtension {
 public:
  virtual ~GuestExtension() = default;
  // The contexts of the import modules this extension implements ({"canonical_abi", this}).
  virtual std::vector<wasm::ImportContext> import_contexts() = 0;
  // True when the extension holds nothing a linear-memory image would not carry. It must be
  // true between calls: a call that leaves it non-empty fails (the session becomes invalid),
  // and the image, snapshots and instance reuse are refused while it is false.
  virtual bool empty() const = 0;
};

// One live instance of the module (with its WASI host and extension) as drivers and hooks see
// it. Every checked call that does not return normally throws: a limit trap (fuel, deadline,
// output) as ExecutionLimitError, any other trap as GuestTrap (its message from the driver's
// describe_trap when it has one; proc_exit is "exit with exit code N" by default). After such a
// throw the instance must not be called again; the host discards it.
class EmbeddedGuest {
 public:
  virtual ~EmbeddedGuest() = default;

  virtual wasm::Instance& instance() = 0;
  virtual WasiHost& wasi() = 0;
  // The driver's extension (nullptr when it has none).
  virtual GuestExtension* extension() = 0;

  // The interpreter's root handle in this instance, for drivers whose API passes one to every
  // call (the wasmify ABI, docs/wasmify-abi.md#boot-image-and-restore); 0 when the driver keeps
  // none (the built-in ABI keeps its interpreter in a guest global). Set by the driver's boot(),
  // carried by the image into every copy, returned as SessionSnapshot::handle, and set from
  // SnapshotSource::handle on restore before after_copy().
  virtual std::uint64_t handle() const = 0;
  virtual void set_handle(std::uint64_t handle) = 0;

  // Built-in ABI only (the guest after_init receives): evaluates `code` as one request with no
  // cwd and no env records. A trap or status 2 throws (ExecutionLimitError for limits,
  // std::runtime_error otherwise); a language error comes back in the reply (status 1). On the
  // guest of a driver engine it throws std::logic_error.
  virtual GuestReply eval(std::string_view code) = 0;

  // Throws what `trap` means (see above).
  [[noreturn]] virtual void throw_trap(const wasm::Trap& trap) = 0;

  // Calls `f` on the instance; a trap throws (see above).
  template <class R, class... A, class... Args>
  R call(const wasm::Function<R(A...)>& f, Args... args) {
    wasm::CallResult<R> result = f(instance(), static_cast<A>(args)...);
    if (!result.ok()) throw_trap(result.trap);
    if constexpr (!std::is_void_v<R>) return result.value;
  }

  // `len` bytes of linear memory at `ptr`; throws std::runtime_error when the range is outside
  // the memory (the guest returned a bad pointer). Valid until the memory grows.
  std::span<std::uint8_t> bytes(std::uint32_t ptr, std::uint32_t len);
  std::uint32_t read_u32(std::uint32_t ptr);
  void write_u32(std::uint32_t ptr, std::uint32_t value);
  std::string read_string(std::uint32_t ptr, std::uint32_t len);
  // The NUL-terminated string at `ptr`, at most `max` bytes (longer: std::runtime_error).
  std::string read_c_string(std::uint32_t ptr, std::uint32_t max);
};

// One request as a driver sees it.
struct DriverRequest {
  std::string_view code;
  // The session's cwd (absolute, under /workspace); "/workspace" in stateless runs (where it is
  // the disabled scratch tree).
  std::string_view cwd;
  const std::map<std::string, std::string>& env;
  // The first call on this copy of the image or of a snapshot (every stateless run; the first
  // execute of a session). A driver that re-seeds its random generators inside execute()
  // rather than in after_copy() does it when this is set.
  bool reseed = false;
};

// What a language with its own exports supplies (the built-in ABI is one such driver inside the
// host). Implementations are immutable after construction and shared by all instances and
// threads.
class EmbeddedDriver {
 public:
  virtual ~EmbeddedDriver() = default;
  // A fresh extension for a new instance (nullptr: the module needs none).
  virtual std::unique_ptr<GuestExtension> make_extension() const { return nullptr; }
  // On a fresh instance (no guest code has run yet): `_initialize`, the interpreter's init, any
  // prelude and warm-up. Its end state becomes the image; it must leave no open files and an
  // empty extension. Throws (GuestTrap, ExecutionLimitError, std::runtime_error) on failure.
  virtual void boot(EmbeddedGuest& guest) const = 0;
  // On every new copy of the image or of a snapshot, before its first execute() (e.g. re-seed
  // random generators, so that copies do not replay the numbers of the image). Throws like
  // boot(); the copy is then discarded. Default: nothing.
  virtual void after_copy(EmbeddedGuest& guest) const { (void)guest; }
  // Evaluates one request: the reply (status 0 or 1), as parse_guest_reply() makes it. Traps,
  // internal errors and malformed replies throw; the extension must be empty again on return.
  virtual GuestReply execute(EmbeddedGuest& guest, const DriverRequest& request) const = 0;
  // A message for a trap that says more than the default (e.g. a refused import), or nullopt.
  virtual std::optional<std::string> describe_trap(const wasm::Trap& trap) const {
    (void)trap;
    return std::nullopt;
  }
  // Identifies what boot() puts into the image beyond the module (e.g. the prelude's source):
  // part of the build id.
  virtual std::string fingerprint() const = 0;
};

// What a language supplies.
struct EmbeddedLanguage {
  std::string language;
  std::string engine_name;
  // The engine's build id; empty = derived (see "Build id" above).
  std::string build = {};
  // fuel: budget per run / per session execute (0 = not metered); memory_bytes: the linear
  // memory cap (0 = the module's declared maximum); code_bytes/request_bytes are reported.
  EngineLimits limits = {};
  // Mounted read-only at /stdlib; null = an empty directory.
  std::shared_ptr<const StdlibTree> stdlib = nullptr;
  // Wall-clock limit of each guest call (zero = none): "Execution time limit exceeded".
  std::chrono::nanoseconds call_timeout = std::chrono::seconds(30);
  // Built-in ABI only: runs once, when the image is made, after session_init (e.g. to evaluate
  // a prelude); whatever it sets up is in every run and every new context. Throwing fails the
  // image (and so the run or boot that needed it). Set `fingerprint` with it.
  std::function<void(EmbeddedGuest&)> after_init = {};
  // Adjusts every successful outcome (run and execute) after the limits are checked.
  std::function<void(EngineOutcome&)> post_process = {};
  // Keeps up to this many freed linear memories for reuse by later instances (0 = none).
  std::size_t pooled_memories = 8;
  // Built-in ABI only: identifies what after_init puts into the image (e.g. the prelude's
  // text); part of the build id.
  std::string fingerprint = {};
  // Fuel and wall-clock time allowed for the boot that makes the image.
  std::uint64_t boot_fuel = 20'000'000'000;
  std::chrono::nanoseconds boot_timeout = std::chrono::seconds(120);
  // Instances of finished stateless runs and ended sessions kept, reset to the image, for later
  // runs, boots and restores (0 = every run and session makes a new instance). With the image
  // mapped copy-on-write, an idle instance holds only the pages runs wrote (about 2 MiB for Python
  // and Ruby); copied, its whole linear memory. One per default worker thread
  // (ServeOptions::worker_threads): with 2, 16 concurrent stateless runs made and dropped 14
  // instances a round, and each drop's unmapping interrupted the other core (2-core machine, `1+1`
  // over 16 connections: Lua 9-12k requests/s against 17k with 16, Python 1.4k against 4.9k,
  // Ruby 1.6k against 4.3k; the server's RSS after Ruby's run 102 against 134 MiB).
  std::size_t idle_instances = 16;
  // The language's own driver; null = the built-in ABI.
  std::shared_ptr<const EmbeddedDriver> driver = nullptr;
};

// Builds the Engine; nothing is instantiated until the first run() or boot(). Throws
// std::invalid_argument when language or engine_name is empty, or when a driver is given
// together with after_init or fingerprint (those belong to the built-in ABI); with the built-in
// ABI, wasm::WasmError when the module lacks one of the required exports (alloc, dealloc,
// session_init, eval, result_ptr, result_len) or has one with a different signature.
Engine make_embedded_engine(const wasm::Module& module, EmbeddedLanguage language);

}  // namespace sandbox

// Engines over prebuilt WASI interpreters (Ruby's ruby.wasm, zeroperl) that start from a
// post-initialisation image instead of re-running the interpreter's start-up.
//
// These modules do not speak our embedded ABI (<sandbox/embedded.h>): each language supplies a
// Driver that knows the module's own exports (boot the interpreter, evaluate one request and
// return the JSON envelope {results?, error?, cwd?} the embedded host also parses).
// make_preinit_engine() turns a driver into a complete sandbox::Engine:
//
//  * The post-initialisation image. The first run() or boot() of the process instantiates the
//    module once, runs Driver::boot (the interpreter's init and the driver prelude), and keeps a
//    copy of the linear memory (only the pages that differ from a freshly instantiated one) and
//    the mutable globals (image.h). Thread-safe and lazy; a failed boot is not cached (the next
//    call retries). Every stateless run and every new context starts from an instance in the
//    image's state, without running `_initialize` or the interpreter's init again.
//  * run() (stateless): an instance in the image's state with an empty /workspace that is
//    disabled (every file operation there answers EACCES: a stateless run has no workspace),
//    one Driver::execute with `reseed` set, the result limit, and the outcome. A trap throws (a
//    limit as ExecutionLimitError, anything else as std::runtime_error), so the kit reports it
//    as upstream does, with empty logs. The instance is then reset to the image and kept for a
//    later run (up to `idle_instances`; image.h says when a reset is refused and how much it
//    costs), because filling a new instance's memory costs several times more on a VM.
//  * sessions: boot() = an instance from the image with the context's /workspace mounted;
//    restore() = a fresh instance, memory grown and filled from the SnapshotSource and the saved
//    mutable globals written back ({"globals": "<base64>"} in `extra`). The first execute after
//    either has `reseed` set (each copy of an image or snapshot must not replay its random
//    numbers). The session state machine is EmbeddedSession's (<sandbox/embedded.h>):
//
//     boot() / restore() ──► kIdle ──execute()──► (driver running) ──returns──► kIdle
//                              │                        │
//                              │  close()               │ trap (fuel, deadline, output limit,
//                              ▼                        ▼ proc_exit, memory fault, refused
//                           kInvalid ◄──────────────────┘ import), malformed reply, result
//                           (final)                       limit, non-empty extension
//
//     1. execute() resets the fuel and the captured logs first: usage and logs are per call.
//     2. execute() never throws for the guest's doing: a failure becomes an outcome named
//        "ExecutionLimitError" or "EngineError" with the logs so far, the session's cwd and
//        usage, and the session becomes kInvalid. execute() on an invalid session throws.
//     3. can_snapshot() ⇔ kIdle, no guest file descriptor beyond the preopens, and the driver's
//        extension empty (e.g. no Ruby value handle outlives a call).
//     4. snapshot() returns handle 0, extra {"globals": ...}, a view of the live memory and,
//        when the runtime's write tracking is on, the pages written since the last snapshot.
//     5. cwd: a reported cwd naming a directory of the workspace becomes the session's cwd;
//        anything else resets it to /workspace.
//
// Results serialized over 65,536 bytes are refused with ExecutionLimitError "Result limit
// exceeded" (after the call).
//
// The engine's build id is the sha256 of the module's sha256 and the driver's fingerprint (its
// prelude source): a changed prelude changes the image, so old snapshots boot fresh.
//
// Thread-safety: run() may be called from many threads at once; a session is used by one thread
// at a time. Drivers must be immutable after construction.
#pragma once

#include <sandbox/embedded.h>
#include <sandbox/engine.h>
#include <sandbox/wasm.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "guest.h"

namespace sandbox::preinit {

// One request as the driver sees it.
struct Request {
  std::string_view code;
  std::string_view cwd;  // absolute, under /workspace
  const std::map<std::string, std::string>& env;
  // First call on an instance made from the image or a snapshot: reseed random generators.
  bool reseed = false;
};

// What a language supplies. Implementations are immutable and shared by all instances.
class Driver {
 public:
  virtual ~Driver() = default;
  // A fresh extension for a new instance (nullptr: the module needs none).
  virtual std::unique_ptr<GuestExtension> make_extension() const { return nullptr; }
  // On a fresh instance (no guest code has run): `_initialize`, the interpreter's init and the
  // driver prelude. Throws (GuestTrap, ExecutionLimitError, std::runtime_error) on failure.
  virtual void boot(Guest& guest) const = 0;
  // Evaluates one request on a booted instance: the reply as parsed by embedded::parse_reply
  // (status 0 or 1). Traps and malformed replies throw.
  virtual GuestReply execute(Guest& guest, const Request& request) const = 0;
  // A message for a trap that says more than the default (e.g. a refused import), or nullopt.
  virtual std::optional<std::string> describe_trap(const wasm::Trap& trap) const {
    (void)trap;
    return std::nullopt;
  }
  // Identifies what boot() puts into the image (e.g. the prelude's source text).
  virtual std::string fingerprint() const = 0;
};

struct PreinitLanguage {
  std::string language;
  std::string engine_name;
  // fuel: budget per run / per session execute (0 = unmetered); memory_bytes: the linear-memory
  // cap (0 = the module's declared maximum); code_bytes/request_bytes are reported.
  EngineLimits limits = {};
  std::shared_ptr<const Driver> driver;
  // Wall-clock limit of each guest call (zero = none): "Execution time limit exceeded".
  std::chrono::nanoseconds call_timeout = std::chrono::seconds(30);
  // Fuel and time allowed for Driver::boot when the image is made.
  std::uint64_t boot_fuel = 20'000'000'000;
  std::chrono::nanoseconds boot_timeout = std::chrono::seconds(120);
  // Freed linear memories kept for reuse by later instances (0 = none).
  std::size_t pooled_memories = 4;
  // Instances of finished stateless runs kept, reset to the image, for later runs (0 = every
  // run makes a new instance). Each holds its linear memory (the image's size) while idle.
  std::size_t idle_instances = 2;
};

struct ImageStats {
  std::uint32_t pages = 0;          // 64 KiB Wasm pages
  std::uint32_t copied_pages = 0;   // pages copied into every new instance (they differ from
                                    // what instantiation writes, and are not all zero)
  std::uint32_t cleared_pages = 0;  // pages instantiation fills but the image has all zero
  double boot_ms = 0;               // Driver::boot when the image was made
  std::uint64_t boot_fuel = 0;
};

struct EngineState;

// The engine's shared state (module, driver, memory pool, image). Cheap to copy: copies share it.
class PreinitEngine {
 public:
  // Throws std::invalid_argument when language, engine_name or driver is missing. Nothing is
  // instantiated until the first run(), boot() or image().
  PreinitEngine(const wasm::Module& module, PreinitLanguage language);

  // The Engine (its functions share this state).
  Engine engine() const;
  // Boots the image if needed (throws what Driver::boot throws) and describes it.
  ImageStats image_stats() const;

 private:
  std::shared_ptr<EngineState> state_;
};

// PreinitEngine(module, language).engine().
Engine make_preinit_engine(const wasm::Module& module, PreinitLanguage language);

}  // namespace sandbox::preinit

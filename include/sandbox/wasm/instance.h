// Instance: one instantiation of a Module (module.h): calling its exports, linear memory, fuel,
// deadlines, memory caps, write tracking, snapshot/restore.
//
//   auto instance = sandbox::wasm::Instance::create(module, {
//       .imports = {{"wasi_snapshot_preview1", wasi.import_context()}},
//       .memory_limit_bytes = limits.memory_bytes});
//   instance->set_fuel(limits.fuel);
//   auto r = instance->call<std::uint32_t(std::uint32_t, std::uint32_t)>("eval", ptr, len);
//   if (!r.ok()) { ... r.trap.kind, r.trap.message; instance->invalid() is now true ... }
//
// Limits, and when each is checked:
//  * Fuel (modules built with FUEL ON): an exported mutable i64 global `fuel`, decremented at
//    every function entry, loop iteration and explicit `return` of the compiled Wasm; when it goes
//    negative the guest calls `sandbox.fuel_exhausted`, which traps with kOutOfFuel (unless a
//    refill handler gives more). Deterministic: the same call with the same budget consumes the
//    same fuel. The budget is set by set_fuel() before a call; fuel_consumed() is exact after
//    the call, also after exhaustion (then it equals the budget plus refills) and after an
//    `unreachable` trap. The generated code keeps fuel in a local between calls, so after any
//    other trap (out of bounds, division by zero, stack exhaustion, deadline) it can miss the
//    units the trapping function used since its entry or its last call.
//  * Memory cap: InstanceOptions::memory_limit_bytes (or set_memory_limit) in whole 64 KiB
//    pages, rounded down. memory.grow beyond it returns -1 to the guest (a normal guest
//    out-of-memory condition; the instance stays valid). Checked at every grow.
//  * Deadline: set_call_timeout / set_deadline. A process-wide watchdog thread (watchdog.h)
//    signals the thread running the call when the deadline passes; the guest traps with
//    kDeadline as soon as it is executing Wasm code (an import in progress finishes first).
//    Checked asynchronously, latency about a millisecond; the watchdog repeats the signal every
//    few milliseconds until the call has left the guest.
//  * Native stack: wasm2c runs the guest on the calling thread's stack; running into that
//    thread's guard page traps with kStackExhausted. The thread's stack size is therefore the
//    guest's recursion budget (HTTP worker threads use large stacks). Checked by the guard
//    page, and at every call from guest code into host code (an import, memory.grow, a fuel
//    refill): with less than kImportStackReserveBytes (import.h) left the guest traps with
//    kStackExhausted there, so host code always has that much stack. Only a fault of the
//    guest's own code becomes a trap: a fault in host code (an import that overflows the stack
//    or touches a bad address) is a host bug and crashes the process, as without the runtime.
//  After any trap except kExit the instance is invalid (see the state machine below).
//
// Instance state machine (Instance::state()):
//
//      create() ──► kFresh ──restore()/prepare_restore()──► kReady
//                     │                                      ▲  │
//                     └──────────── call() ───────┐  return  │  │ call()
//                                                 ▼  or kExit│  ▼
//                                               kRunning ────┘──┘
//                                                 │ any other trap (incl. in a nested call)
//                                                 ▼
//                                              kInvalid ──► only memory reads, snapshot refused,
//                                                           destruction
//  Invariants:
//   1. kFresh means no guest code has run since instantiation (data segments and global
//      initialisers only): the only state restore()/prepare_restore() accept.
//   2. kRunning means a call is on the stack of the owning thread. Calls may nest (host -> guest
//      -> import -> guest, same or another instance); the state returns to kReady when the
//      outermost call on this instance returns.
//   3. kInvalid is final. It is entered by any trap other than kExit, including a trap that a
//      nested call on this instance returned to an import.
//   4. snapshot() never changes the state; it is refused while kRunning or kInvalid, and — with
//      GlobalsPolicy::kRequireInitial — when a mutable global (other than `fuel`) differs from
//      its value right after instantiation, because a memory-only snapshot would not carry it.
//   5. Memory never shrinks; pages only grow (guest memory.grow, prepare_restore).
//
// Thread-safety: an Instance is used by one thread at a time (the thread running a call owns it
// until the call returns); different instances run on different threads at once. The first
// guest call on a thread installs that thread's signal stack (lazily; prepare_thread() does it
// eagerly).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include <wasm-rt.h>

#include <sandbox/wasm/error.h>
#include <sandbox/wasm/function.h>
#include <sandbox/wasm/import.h>
#include <sandbox/wasm/memory_pool.h>
#include <sandbox/wasm/module.h>
#include <sandbox/wasm/signature.h>
#include <sandbox/wasm/snapshot.h>
#include <sandbox/wasm/trap.h>
#include <sandbox/wasm/watchdog.h>
#include <sandbox/wasm/write_tracking.h>

namespace sandbox::wasm {

struct InstanceOptions {
  // One context per provided import module (except `sandbox`, which the runtime supplies).
  // Stubbed modules need none. A provided module without a context is a WasmError.
  std::vector<ImportContext> imports;
  // Linear-memory cap in bytes (0: the module's declared maximum). Rounded down to pages.
  std::uint64_t memory_limit_bytes = 0;
  MemoryPool* pool = nullptr;    // borrowed; nullptr: plain mmap/munmap
  Watchdog* watchdog = nullptr;  // borrowed; nullptr: the process-wide watchdog
  void* host_data = nullptr;     // returned by Instance::host_data()
  // The caller replaces the whole linear memory before any guest code runs (Instance::restore,
  // or a copy-on-write image of the same module): instantiation leaves the memory zero instead
  // of copying the module's active data segments, which for a large interpreter is megabytes
  // and most of the instantiation's time. A segment out of bounds then does not trap here.
  bool skip_data_segments = false;
};

enum class InstanceState : std::uint8_t { kFresh, kReady, kRunning, kInvalid };
std::string_view instance_state_name(InstanceState state);

class Instance {
 public:
  // Allocates and instantiates (data segments, globals, tables; `_initialize` is NOT run: call
  // it like any export). Throws WasmError on a missing import context, a memory cap below the
  // module's initial pages, or a trap during instantiation (e.g. a data segment out of range).
  static std::unique_ptr<Instance> create(const Module& module, const InstanceOptions& options);
  // Frees memory (unmapped, or returned to the pool) and tables. Must not run while the
  // instance is kRunning (e.g. from one of its own imports).
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  const Module& module() const { return module_; }
  InstanceState state() const { return state_; }
  bool invalid() const { return state_ == InstanceState::kInvalid; }
  // The trap that made the instance invalid (kind kNone while it is not).
  const Trap& invalidating_trap() const { return invalidating_trap_; }
  void* host_data() const { return host_data_; }
  // Instantiated with InstanceOptions::skip_data_segments: the memory started all zero.
  bool skipped_data_segments() const { return skipped_data_segments_; }
  // The instance whose guest code is innermost on this thread's stack (e.g. inside an import),
  // or nullptr.
  static Instance* current();

  // ---- calls ----
  // Calls the export `name` with C++ signature Sig (see Module::function). Throws WasmError on
  // a lookup/signature mismatch or when the instance is invalid; a guest failure is the trap.
  template <class Sig, class... Args>
  CallResult<typename detail::SigTraits<Sig>::Result> call(std::string_view name, Args... args) {
    return module_.function<Sig>(name)(*this, args...);
  }

  // ---- fuel (metered modules only; WasmError otherwise) ----
  // Sets the remaining fuel (at most INT64_MAX) and resets fuel_consumed() to 0.
  void set_fuel(std::uint64_t budget);
  std::uint64_t fuel_remaining() const;
  // Fuel used since set_fuel(), refills included; after exhaustion, budget + refills (see
  // "Limits" above for other traps).
  std::uint64_t fuel_consumed() const;
  // Called (on the guest's thread, inside the guest call) when fuel runs out; it returns more
  // fuel to continue with, or 0 to trap with kOutOfFuel. It must not throw. Optional.
  void set_fuel_exhausted_handler(std::function<std::uint64_t()> handler);

  // ---- deadlines ----
  // Each outermost call on this instance gets the deadline now + timeout (zero: none).
  void set_call_timeout(std::chrono::nanoseconds timeout);
  // An absolute deadline applying to every call until changed (std::nullopt: none). With both,
  // the earlier wins.
  void set_deadline(std::optional<std::chrono::steady_clock::time_point> deadline);

  // ---- memory ----
  // The current linear memory (empty without one). A grow invalidates the span (the base
  // address stays the same; only the size changes).
  std::span<std::uint8_t> memory();
  std::span<const std::uint8_t> memory() const;
  std::uint32_t memory_pages() const;
  // The wasm_rt_memory_t the generated code uses (for import hosts; stable for the instance's
  // life; nullptr without memory).
  wasm_rt_memory_t* rt_memory() const;
  // Caps further growth at `bytes` (rounded down to pages; 0: the module's maximum). A cap below
  // the current size only stops growth: memory never shrinks.
  void set_memory_limit(std::uint64_t bytes);
  std::uint32_t memory_limit_pages() const;

  // ---- write tracking ----
  // Starts recording which pages get written (by guest code, host code or system calls writing
  // into the memory), with `mode` (write_tracking.h; kAuto: the process default, from the
  // environment variable SANDBOX_WRITE_TRACKING, else asynchronous userfaultfd where the kernel
  // offers it and mprotect otherwise). Calling it again re-arms: the dirty set is dropped.
  // Returns false when tracking is unavailable or `mode` is kNone (the memory is then left
  // untracked and snapshots hash every page).
  bool track_writes(WriteTracking mode = WriteTracking::kAuto);
  // The mechanism tracking this memory now (kNone when untracked).
  WriteTracking write_tracking() const;
  // The pages written since track_writes() or the previous call, ascending, and re-arms the
  // tracking; nullopt when the memory is not tracked.
  std::optional<std::vector<std::uint32_t>> take_dirty_pages();
  // The same, and in `blocks` one entry per dirty page: the mask of its 4 KiB blocks that may
  // have been written (bit b: bytes [b * 4 KiB, (b + 1) * 4 KiB) of the page); a clear bit
  // promises the block was not. Userfaultfd tracking reports blocks; mprotect tracking knows
  // pages only and sets every bit. `blocks` is emptied when the memory is not tracked.
  std::optional<std::vector<std::uint32_t>> take_dirty_pages(std::vector<std::uint16_t>& blocks);

  // ---- globals and snapshots ----
  // True when every mutable global except `fuel` equals its value right after instantiation.
  bool globals_at_initial() const;
  // The mutable globals except `fuel` and reference-typed ones, concatenated in declaration
  // order (little-endian, 4 or 8 bytes each).
  std::vector<std::uint8_t> save_globals() const;
  // Writes back what save_globals() returned. Throws WasmError on a size mismatch.
  void load_globals(std::span<const std::uint8_t> bytes);
  // Copies memory and (per policy) globals. Throws WasmError when kRunning or kInvalid, or
  // (kRequireInitial) when !globals_at_initial().
  Snapshot snapshot(GlobalsPolicy policy = GlobalsPolicy::kRequireInitial) const;
  // kFresh only: grows memory to snapshot.pages, copies the memory (and the globals, if saved)
  // in, and becomes kReady without running any guest code. Throws WasmError otherwise, or when
  // the pages exceed the memory limit.
  void restore(const Snapshot& snapshot);
  // kFresh only: grows memory to `pages` and becomes kReady; the caller then writes the stored
  // pages through memory() (pages it does not write keep their post-instantiation contents).
  void prepare_restore(std::uint32_t pages);
  // kReady only: grows the memory to `pages` (the new pages zero), as the guest's memory.grow
  // would; for an instance reused for a restore (a context restored into an idle instance in the
  // image's state). Throws WasmError in another state, below the current size (memory never
  // shrinks) or beyond the memory limit.
  void grow_memory_to(std::uint32_t pages);

  // ---- low level ----
  // Runs `thunk(arg)` as a guest call on this instance (state, deadline, trap handling). `thunk`
  // must be a function with no live C++ objects with destructors when guest code traps.
  Trap invoke(void (*thunk)(void*), void* arg);
  void* raw_instance() const { return raw_; }

 private:
  struct State;
  Instance(const Module& module, const InstanceOptions& options);
  // What prepare_restore() and grow_memory_to() share once the state is checked: grows the
  // memory to `pages`; throws WasmError below its size, beyond its limit, or for pages of a
  // module without memory.
  void grow_for_restore(std::uint32_t pages);
  Module module_;
  void* raw_ = nullptr;  // the wasm2c instance struct
  std::unique_ptr<State> c_;
  InstanceState state_ = InstanceState::kFresh;
  Trap invalidating_trap_;
  void* host_data_ = nullptr;
  bool skipped_data_segments_ = false;
  std::uint32_t depth_ = 0;  // nested calls on this instance
  std::chrono::nanoseconds call_timeout_{0};
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  Watchdog* watchdog_ = nullptr;
  MemoryPool* pool_ = nullptr;
  std::vector<std::uint8_t> initial_globals_;
  std::function<std::uint64_t()> fuel_handler_;
  // The generated code's fuel refill callback: asks fuel_handler_ for more (0 = none; so does a
  // handler that throws).
  static std::uint64_t refill_fuel(void* host) noexcept;
};

// Installs the calling thread's signal stack now instead of at its first guest call.
void prepare_thread();

// ---- Function::operator() (function.h), which needs Instance complete ----

namespace detail {
// A guest call's arguments and result, in a frame Instance::invoke runs `thunk` on: the thunk
// holds no C++ object with a destructor, since a trap leaves it by siglongjmp
// (docs/guest-abi.md#traps).
template <class R, class... A>
struct CallFrame {
  R (*fn)(void*, A...);
  void* instance;
  std::tuple<A...> args;
  std::conditional_t<std::is_void_v<R>, char, R> result{};
  static void thunk(void* p) {
    auto* f = static_cast<CallFrame*>(p);
    std::apply(
        [f](A... a) {
          if constexpr (std::is_void_v<R>) {
            f->fn(f->instance, a...);
          } else {
            f->result = f->fn(f->instance, a...);
          }
        },
        f->args);
  }
};
}  // namespace detail

template <class R, class... A>
CallResult<R> Function<R(A...)>::operator()(Instance& instance, A... args) const {
  if (fn_ == nullptr) throw WasmError("call through an empty Function handle");
  if (module_key_ != &instance.module().descriptor()) {
    throw WasmError("Function '" + std::string(name_) + "' belongs to another module");
  }
  detail::CallFrame<R, A...> frame{fn_, instance.raw_instance(), std::tuple<A...>(args...), {}};
  CallResult<R> out;
  out.trap = instance.invoke(&detail::CallFrame<R, A...>::thunk, &frame);
  if constexpr (!std::is_void_v<R>) {
    if (out.trap.ok()) out.value = frame.result;
  }
  return out;
}

}  // namespace sandbox::wasm

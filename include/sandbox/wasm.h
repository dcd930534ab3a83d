// Wasm modules compiled ahead of time by `sandbox-wasmc` (fuel pass + wasm2c + split), and their
// instances: calling exports, linear memory, fuel, deadlines, memory caps, snapshot/restore.
//
// A module is native code linked into the program: `sandbox_add_wasm_module(NAME WASM ...)`
// (cmake/SandboxWasm.cmake) builds a static library NAME whose header `NAME.h` declares
//   const struct sandbox_wasm_module_descriptor* sandbox_wasm_module_NAME(void);
// and `sandbox::wasm::Module module(*sandbox_wasm_module_NAME());` wraps it.
//
//   sandbox::wasm::Module module(*sandbox_wasm_module_quickjs());
//   auto instance = sandbox::wasm::Instance::create(module, {
//       .imports = {{"wasi_snapshot_preview1", wasi.import_context()}},
//       .memory_limit_bytes = limits.memory_bytes});
//   wasi.attach_memory(instance->rt_memory());
//   instance->set_fuel(limits.fuel);
//   instance->set_call_timeout(std::chrono::seconds(30));
//   auto r = instance->call<std::uint32_t(std::uint32_t, std::uint32_t)>("eval", ptr, len);
//   if (!r.ok()) { ... r.trap.kind, r.trap.message; instance->invalid() is now true ... }
//
// Guest failures are values: a trap (out-of-bounds access, unreachable, stack exhaustion, fuel,
// deadline, proc_exit, an import that trapped) comes back in CallResult::trap, never as a C++
// exception and never as a crash of the process. Exceptions (WasmError) are reserved for misuse
// by the embedder: an unknown export, a signature mismatch, restoring into a used instance, a
// memory cap below the module's initial size, a missing import context.
//
// Imports. wasm2c-generated code calls each import as the global C function
// `Z_<module>Z_<name>(struct Z_<module>_instance_t* ctx, ...)`. sandbox-wasmc is given the list
// of "provided" import modules or functions (default: wasi_snapshot_preview1 and sandbox); every
// other import becomes a module-private stub that traps with kUnsupportedImport. The embedder
// passes one context pointer per provided import module (InstanceOptions::imports); the runtime
// supplies the context of the `sandbox` module (fuel) itself. Calls to provided imports are
// bracketed with sandbox_wasm_host_enter()/leave() by the generated code, so an asynchronous
// deadline never unwinds through host code (it is deferred to the import's return). An import
// that needs to stop the guest calls sandbox_wasm_trap() (src/wasm/host_call.h) with no live C++
// objects in its frame. Imports must not let a C++ exception escape (it would unwind through
// generated code and the runtime's call frames); catch it and trap with kHostError instead.
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
//  * Deadline: set_call_timeout / set_deadline. A process-wide watchdog thread signals the
//    thread running the call when the deadline passes; the guest traps with kDeadline as soon as
//    it is executing Wasm code (an import in progress finishes first). Checked asynchronously,
//    latency about a millisecond; the watchdog repeats the signal every few milliseconds until
//    the call has left the guest.
//  * Native stack: wasm2c runs the guest on the calling thread's stack; running into that
//    thread's guard page traps with kStackExhausted. The thread's stack size is therefore the
//    guest's recursion budget (HTTP worker threads use large stacks). Checked by the guard
//    page, and at every call from guest code into host code (an import, memory.grow, a fuel
//    refill): with less than kImportStackReserveBytes left the guest traps with
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
// Thread-safety: Module is an immutable value, safe to share. An Instance is used by one thread
// at a time (the thread running a call owns it until the call returns); different instances run
// on different threads at once. MemoryPool and Watchdog are thread-safe. The first guest call on
// a thread installs that thread's signal stack (lazily; prepare_thread() does it eagerly).
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <wasm-rt.h>

// Generated by sandbox-wasmc; defined in src/wasm/module_descriptor.h.
struct sandbox_wasm_module_descriptor;
struct sandbox_wasm_export;

namespace sandbox::wasm {

// Native stack every host import (and runtime helper) called from guest code is guaranteed:
// guest code calling into the host with less than this left below it traps with
// kStackExhausted instead. Imports must not need more (no deep recursion over guest data).
inline constexpr std::size_t kImportStackReserveBytes = std::size_t{256} * 1024;

// Misuse of this API by the embedder (never a guest failure).
class WasmError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class ValType : std::uint8_t { kI32, kI64, kF32, kF64, kFuncRef, kExternRef };

enum class TrapKind : std::uint8_t {
  kNone,
  kOutOfBounds,      // linear memory or table access out of bounds
  kIntegerOverflow,  // signed division overflow, float->int truncation overflow
  kDivideByZero,
  kInvalidConversion,     // NaN to integer
  kUnreachable,           // `unreachable` executed (e.g. abort() in the guest)
  kIndirectCallMismatch,  // call_indirect to a null entry or with the wrong signature
  kUncaughtException,     // Wasm exception handling: throw without catch
  kStackExhausted,        // native stack guard page reached
  kExit,                  // proc_exit(code): exit_code is set; does not invalidate
  kOutOfFuel,             // fuel exhausted -> ExecutionLimitError "Execution fuel exhausted"
  kDeadline,              // wall-clock deadline -> "Execution time limit exceeded"
  kOutputLimit,           // stdout/stderr capture over its limit -> "Output limit exceeded"
  kUnsupportedImport,     // the guest called an import the host does not provide
  kHostError,             // an import failed in a way the guest cannot handle
  kUnknown,               // an unrecognised trap code (message says which)
};

// The outcome of a guest call that did not return normally.
struct Trap {
  TrapKind kind = TrapKind::kNone;
  std::uint32_t exit_code = 0;  // kExit only
  std::string message;          // human-readable; for limits, the ExecutionLimitError message

  bool ok() const { return kind == TrapKind::kNone; }
  // Fuel, deadline and output limit: reported as ExecutionLimitError(message).
  bool is_limit() const {
    return kind == TrapKind::kOutOfFuel || kind == TrapKind::kDeadline ||
           kind == TrapKind::kOutputLimit;
  }
  // Whether the instance that raised it is invalid afterwards (everything but kNone, kExit).
  bool invalidates() const { return kind != TrapKind::kNone && kind != TrapKind::kExit; }
};

// "Out-of-bounds memory access", "Execution fuel exhausted", ... (the default message).
std::string_view trap_kind_message(TrapKind kind);
// Stable identifier: "none", "out_of_bounds", "out_of_fuel", ...
std::string_view trap_kind_name(TrapKind kind);
// The Trap for a raw trap code (wasm_rt_trap_t or SANDBOX_TRAP_*).
Trap trap_from_code(std::uint32_t code);

template <class R>
struct CallResult {
  Trap trap;
  R value{};  // meaningful only when ok()
  bool ok() const { return trap.ok(); }
};
template <>
struct CallResult<void> {
  Trap trap;
  bool ok() const { return trap.ok(); }
};

namespace detail {
template <class T>
struct ValTypeOf;
template <>
struct ValTypeOf<std::uint32_t> {
  static constexpr ValType value = ValType::kI32;
};
template <>
struct ValTypeOf<std::int32_t> {
  static constexpr ValType value = ValType::kI32;
};
template <>
struct ValTypeOf<std::uint64_t> {
  static constexpr ValType value = ValType::kI64;
};
template <>
struct ValTypeOf<std::int64_t> {
  static constexpr ValType value = ValType::kI64;
};
template <>
struct ValTypeOf<float> {
  static constexpr ValType value = ValType::kF32;
};
template <>
struct ValTypeOf<double> {
  static constexpr ValType value = ValType::kF64;
};
template <class Sig>
struct SigTraits;
template <class R>
struct ResultTypes {
  static constexpr std::array<ValType, 1> kTypes{ValTypeOf<R>::value};
};
template <>
struct ResultTypes<void> {
  static constexpr std::array<ValType, 0> kTypes{};
};
template <class R, class... A>
struct SigTraits<R(A...)> {
  using Result = R;
  static constexpr std::array<ValType, sizeof...(A)> kParams{ValTypeOf<A>::value...};
  static constexpr const auto& kResults = ResultTypes<R>::kTypes;
};
}  // namespace detail

struct FunctionInfo {
  std::string_view name;
  std::vector<ValType> params;
  std::vector<ValType> results;
};

class Instance;

// A typed handle to an exported function, checked once against the module (Module::function).
template <class Sig>
class Function;
template <class R, class... A>
class Function<R(A...)> {
 public:
  Function() = default;
  bool valid() const { return fn_ != nullptr; }
  std::string_view name() const { return name_; }
  // Calls it on `instance` (which must be an instance of the module this came from).
  CallResult<R> operator()(Instance& instance, A... args) const;

 private:
  friend class Module;
  using Raw = R (*)(void*, A...);
  Function(const void* module_key, std::string_view name, Raw fn)
      : module_key_(module_key), name_(name), fn_(fn) {}
  const void* module_key_ = nullptr;
  std::string_view name_;
  Raw fn_ = nullptr;
};

// A compiled module: its descriptor plus an index of its exports. Cheap to copy.
class Module {
 public:
  // Initialises the runtime (signal handlers) and the module (function types) once per process;
  // thread-safe. Throws WasmError if the descriptor's ABI version does not match this runtime.
  explicit Module(const sandbox_wasm_module_descriptor& descriptor);

  std::string_view name() const;
  // sha256 (hex) of the final .wasm that was compiled (after the fuel pass and memory cap):
  // the natural `build` id of an engine.
  std::string_view wasm_sha256() const;
  bool metered() const;  // compiled with the fuel pass
  bool has_memory() const;
  std::uint32_t initial_pages() const;
  std::uint32_t max_pages() const;  // declared maximum after any build-time cap (65535 at most)
  // Import module names, in the order of the instantiate() contexts, and whether each is
  // provided by the host (true) or stubbed to trap (false).
  std::vector<std::pair<std::string_view, bool>> import_modules() const;
  std::vector<FunctionInfo> functions() const;  // exported functions
  std::optional<FunctionInfo> find_function(std::string_view name) const;

  // The export `name` with C++ signature Sig (uint32_t/int32_t = i32, uint64_t/int64_t = i64,
  // float = f32, double = f64; void or one result). Throws WasmError if there is no such
  // exported function or its Wasm signature differs.
  template <class Sig>
  Function<Sig> function(std::string_view name) const {
    using T = detail::SigTraits<Sig>;
    auto [export_name, fn] = checked_export(name, T::kParams, T::kResults);
    return make_function<Sig>(export_name, fn);
  }

  const sandbox_wasm_module_descriptor& descriptor() const { return *descriptor_; }

 private:
  friend class Instance;
  struct Index;
  template <class Sig>
  Function<Sig> make_function(std::string_view name, const void* fn) const;
  // The export's own (static) name and its function pointer; throws WasmError on mismatch.
  std::pair<std::string_view, const void*> checked_export(std::string_view name,
                                                          std::span<const ValType> params,
                                                          std::span<const ValType> results) const;
  const sandbox_wasm_module_descriptor* descriptor_;
  std::shared_ptr<const Index> index_;
};

// Keeps freed linear memories (their 8 GiB reservations) for reuse by later instances, which
// makes instantiate+free several times cheaper (no mmap/munmap, no page-table setup). A memory
// is zeroed when it enters the pool (memset up to 1 MiB, kept read-write; larger ones are
// dropped with MADV_DONTNEED and re-protected); everything beyond the memory's size is dropped
// and made inaccessible whatever its bookkeeping says, and exactly the new instance's initial
// pages are accessible when it leaves. Thread-safe; must outlive every instance created with it.
// Holds at most `max_cached` reservations; the rest are unmapped.
class MemoryPool {
 public:
  explicit MemoryPool(std::size_t max_cached = 64);
  ~MemoryPool();  // unmaps every cached reservation
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;
  std::size_t cached() const;

 private:
  friend class Instance;
  void* handle_;
};

// One timer thread that interrupts guest calls whose deadline passed. Thread-safe; must outlive
// every instance that uses it. Instances without an explicit watchdog share a process-wide one
// started on first use (signals are a process-wide resource; this is the one exception to "no
// singletons").
class Watchdog {
 public:
  Watchdog();
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  // Number of deadline signals sent so far (for tests and metrics).
  std::uint64_t signals_sent() const;

 private:
  friend class Instance;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct ImportContext {
  std::string module;  // import module name, e.g. "wasi_snapshot_preview1"
  void* context;       // passed as the first argument of that module's imports
};

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

// How an instance's memory notes the pages it writes (Instance::track_writes;
// docs/snapshot-format.md, "Change detection"). Every mode reports at least every written page.
enum class WriteTracking : std::uint8_t {
  kAuto,         // the process default (SANDBOX_WRITE_TRACKING), else kUserfaultfd, else kMprotect
  kUserfaultfd,  // asynchronous userfaultfd write-protection, collected with PAGEMAP_SCAN
  kMprotect,     // read-only pages, one SIGSEGV per first write to a 64 KiB page
  kNone,         // untracked: snapshots hash every page
};
// The process default for kAuto (tests and benchmarks compare the modes); kAuto restores the
// automatic choice.
void set_default_write_tracking(WriteTracking mode);
WriteTracking default_write_tracking();
// Whether asynchronous userfaultfd write-protection works in this process (Linux 6.7+).
bool userfaultfd_tracking_available();

// What a memory-only snapshot does about mutable globals (`__stack_pointer`, asyncify state).
enum class GlobalsPolicy : std::uint8_t {
  kRequireInitial,  // refuse (WasmError) unless they equal their post-instantiation values
  kSave,            // save them in Snapshot::globals and write them back on restore
};

// A copy of an instance's state: linear memory and (optionally) its mutable globals.
struct Snapshot {
  std::uint32_t pages = 0;
  std::vector<std::uint8_t> memory;                  // pages * 65536 bytes
  std::optional<std::vector<std::uint8_t>> globals;  // see Instance::save_globals()
};

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
  // into the memory), with `mode` (WriteTracking above; kAuto: the process default, from the
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

  // ---- low level ----
  // Runs `thunk(arg)` as a guest call on this instance (state, deadline, trap handling). `thunk`
  // must be a function with no live C++ objects with destructors when guest code traps.
  Trap invoke(void (*thunk)(void*), void* arg);
  void* raw_instance() const { return raw_; }

 private:
  struct State;
  Instance(const Module& module, const InstanceOptions& options);
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
  friend struct InstanceAccess;
};

// Installs the calling thread's signal stack now instead of at its first guest call.
void prepare_thread();
// Linear-memory reservations currently mapped by this process (live instances plus pooled
// memories); for leak tests and metrics.
std::uint64_t live_memory_reservations();

// ---- template definitions ----

namespace detail {
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

template <class Sig>
Function<Sig> Module::make_function(std::string_view name, const void* fn) const {
  using Raw = typename Function<Sig>::Raw;
  return Function<Sig>(descriptor_, name, reinterpret_cast<Raw>(const_cast<void*>(fn)));
}

}  // namespace sandbox::wasm

// The Wasm runtime, all of it: modules compiled ahead of time by `sandbox-wasmc` (fuel pass +
// wasm2c + split), and their instances: calling exports, linear memory, fuel, deadlines, memory
// caps, write tracking, snapshot/restore. One header per concept under <sandbox/wasm/>, which
// this umbrella includes; include a narrower one where that is all a file uses:
//
//   wasm/error.h           WasmError: misuse by the embedder (never a guest failure)
//   wasm/trap.h            TrapKind, Trap, CallResult: how a guest failure comes back
//   wasm/signature.h       ValType, FunctionInfo, C++ signatures of exports
//   wasm/function.h        Function<Sig>: a typed handle to an export
//   wasm/module.h          Module: a compiled module and its exports
//   wasm/import.h          ImportContext, kImportStackReserveBytes: the rules of host imports
//   wasm/memory_pool.h     MemoryPool: reuse of freed linear memories; live reservations
//   wasm/watchdog.h        Watchdog: the deadline timer thread
//   wasm/write_tracking.h  WriteTracking: how written pages are noted
//   wasm/snapshot.h        Snapshot, GlobalsPolicy: a copy of an instance's state
//   wasm/instance.h        Instance, InstanceOptions, the limits and the state machine
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
// Thread-safety: Module is an immutable value, safe to share. An Instance is used by one thread
// at a time (the thread running a call owns it until the call returns); different instances run
// on different threads at once. MemoryPool and Watchdog are thread-safe. The first guest call on
// a thread installs that thread's signal stack (lazily; prepare_thread() does it eagerly).
#pragma once

#include <sandbox/wasm/error.h>
#include <sandbox/wasm/function.h>
#include <sandbox/wasm/import.h>
#include <sandbox/wasm/instance.h>
#include <sandbox/wasm/memory_pool.h>
#include <sandbox/wasm/module.h>
#include <sandbox/wasm/signature.h>
#include <sandbox/wasm/snapshot.h>
#include <sandbox/wasm/trap.h>
#include <sandbox/wasm/watchdog.h>
#include <sandbox/wasm/write_tracking.h>

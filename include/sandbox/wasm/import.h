// Imports: how the host provides the functions a module imports, and what host code called
// from guest code may rely on and must not do.
//
// wasm2c-generated code calls each import as the global C function
// `Z_<module>Z_<name>(struct Z_<module>_instance_t* ctx, ...)`. sandbox-wasmc is given the list
// of "provided" import modules or functions (default: wasi_snapshot_preview1 and sandbox); every
// other import becomes a module-private stub that traps with kUnsupportedImport. The embedder
// passes one context pointer per provided import module (InstanceOptions::imports, instance.h);
// the runtime supplies the context of the `sandbox` module (fuel) itself. Calls to provided
// imports are bracketed with sandbox_wasm_host_enter()/leave() by the generated code, so an
// asynchronous deadline never unwinds through host code (it is deferred to the import's return).
// An import that needs to stop the guest calls sandbox_wasm_trap() (src/wasm/host_call.h) with no
// live C++ objects in its frame. Imports must not let a C++ exception escape (it would unwind
// through generated code and the runtime's call frames); catch it and trap with kHostError
// instead.
//
// Thread-safety: an import runs on the thread of the guest call that made it.
#pragma once

#include <cstddef>
#include <string>

namespace sandbox::wasm {

// Native stack every host import (and runtime helper) called from guest code is guaranteed:
// guest code calling into the host with less than this left below it traps with
// kStackExhausted instead. Imports must not need more (no deep recursion over guest data).
inline constexpr std::size_t kImportStackReserveBytes = std::size_t{256} * 1024;

// The context of one provided import module.
struct ImportContext {
  std::string module;  // import module name, e.g. "wasi_snapshot_preview1"
  void* context;       // passed as the first argument of that module's imports
};

}  // namespace sandbox::wasm

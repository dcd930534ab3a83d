// {{project}}'s wasmify driver: what the kit cannot know about the guest wasm/{{project}}.wasm
// (which API functions create the interpreter and evaluate a script, how one request is phrased
// as a script of its language, and how an answer is read). src/engine.cc hands it to
// sandbox::make_wasmify_engine(); src/driver.cc is yours to write.
//
// Thread-safety: the driver's functions may be called from several threads at once (one call per
// session at a time); keep them free of shared mutable state.
#pragma once

#include <sandbox/wasmify.h>

namespace {{project}} {

sandbox::WasmifyDriver make_driver();

}  // namespace {{project}}

// The wkv test engine's wasmify driver, in the layout `sandbox init --custom wkv --wasmify`
// generates (src/driver.h of such a project declares the same function): the engine author's
// guide builds a generated project with this very driver.cc (docs/build-your-own-runtime.md,
// "The wasmify ABI").
//
// Init method w_0_2 (wkv_new), eval method w_0_1 (wkv_eval, a binary answer), boot script
// `helper`, after-copy script `reseed`; one execute is the script
// `run x<hex code> x<hex cwd> x<hex env>`, whose value is our JSON envelope.
// Thread-safety: the driver's functions keep no state.
#pragma once

#include <sandbox/wasmify.h>

namespace wkv {

sandbox::WasmifyDriver make_driver();

}  // namespace wkv

// The C++ face of write_tracking.h: WriteTracking (include/sandbox/wasm/write_tracking.h) for a raw
// memory.
#pragma once

#include <sandbox/wasm/write_tracking.h>

#include "wasm-rt.h"

namespace sandbox::wasm {

// Starts (or re-arms) tracking of `memory` in `mode` (kAuto: the process default). False when
// unavailable or kNone; the memory is then untracked.
bool track_memory_writes(wasm_rt_memory_t* memory, WriteTracking mode);
// The mechanism tracking `memory` now (kNone when untracked).
WriteTracking memory_write_tracking(const wasm_rt_memory_t* memory);

}  // namespace sandbox::wasm

#include "wasm/write_tracking_mode.h"

#include "wasm/write_tracking.h"

namespace sandbox::wasm {
namespace {

sandbox_wasm_tracking_mode to_c(WriteTracking mode) {
  switch (mode) {
    case WriteTracking::kAuto:
      return SANDBOX_WASM_TRACK_AUTO;
    case WriteTracking::kUserfaultfd:
      return SANDBOX_WASM_TRACK_UFFD;
    case WriteTracking::kMprotect:
      return SANDBOX_WASM_TRACK_MPROTECT;
    case WriteTracking::kNone:
      break;
  }
  return SANDBOX_WASM_TRACK_NONE;
}

WriteTracking from_c(sandbox_wasm_tracking_mode mode) {
  switch (mode) {
    case SANDBOX_WASM_TRACK_AUTO:
      return WriteTracking::kAuto;
    case SANDBOX_WASM_TRACK_UFFD:
      return WriteTracking::kUserfaultfd;
    case SANDBOX_WASM_TRACK_MPROTECT:
      return WriteTracking::kMprotect;
    case SANDBOX_WASM_TRACK_NONE:
      break;
  }
  return WriteTracking::kNone;
}

}  // namespace

void set_default_write_tracking(WriteTracking mode) {
  sandbox_wasm_set_default_tracking_mode(to_c(mode));
}

WriteTracking default_write_tracking() { return from_c(sandbox_wasm_default_tracking_mode()); }

bool userfaultfd_tracking_available() { return sandbox_wasm_uffd_tracking_available() != 0; }

bool track_memory_writes(wasm_rt_memory_t* memory, WriteTracking mode) {
  const sandbox_wasm_tracking_mode m =
      mode == WriteTracking::kAuto ? sandbox_wasm_default_tracking_mode() : to_c(mode);
  return sandbox_wasm_track_writes_with(memory, m) == 0;
}

WriteTracking memory_write_tracking(const wasm_rt_memory_t* memory) {
  return from_c(sandbox_wasm_tracking_mode_of(memory));
}

}  // namespace sandbox::wasm

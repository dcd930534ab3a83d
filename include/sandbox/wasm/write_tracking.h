// Write tracking: how an instance's linear memory notes the 64 KiB pages it writes, so that a
// snapshot re-hashes and stores only what changed (Instance::track_writes, instance.h;
// docs/snapshot-format.md, "Change detection").
//
// Thread-safety: the process default is read and set atomically; set it before instances start
// tracking, since each memory chooses its mode when tracking starts.
#pragma once

#include <cstdint>

namespace sandbox::wasm {

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

}  // namespace sandbox::wasm

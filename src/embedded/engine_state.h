// EngineState: what every run and session of one embedded engine shares — the module, the
// language, its driver, the memory pool, the post-initialisation image (captured on first use)
// and the idle instances kept for stateless runs.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <sandbox/clock.h>
#include <sandbox/embedded.h>
#include <sandbox/wasm.h>
#include <sandbox/workspace.h>

#include "embedded/guest.h"
#include "embedded/image.h"

namespace sandbox::embedded {

// A guest with its own scratch /workspace (disabled: a stateless run has no workspace), the unit
// the engine keeps idle between uses. A stateless run uses it as it is; a session mounts its
// context's workspace over the scratch one (WasiHost::remount_workspace) and mounts the scratch
// one back before the guest returns to the idle list, so an idle guest never reaches a context's
// files.
struct PooledGuest {
  PooledGuest(const GuestConfig& config, std::shared_ptr<const StdlibTree> stdlib,
              const Clock& clock);
  Workspace scratch;  // declared first: outlives the guest's WASI host
  Guest guest;
};

// Members are destroyed in reverse order: idle instances before the pool their memories return
// to, the clock their workspaces use, and the module and driver they point to.
struct EngineState {
  // `driver` must not be null. Computes the build id (see <sandbox/embedded.h>).
  EngineState(const wasm::Module& m, EmbeddedLanguage l, std::shared_ptr<const EmbeddedDriver> d);

  // The configuration of the guests that run requests (the language's fuel and call timeout).
  GuestConfig run_config() const;
  // run_config() for a guest whose whole memory is placed before it runs (the image, or a
  // snapshot): its instantiation skips the module's data segments.
  GuestConfig placed_config() const;
  // The image, captured on first use; a failed capture throws and is retried next time.
  std::shared_ptr<const Image> image();
  // The image as the base of delta snapshots (docs/snapshot-format.md#delta-encoding), or null
  // when it is not reproducible: a second capture under the same fixed boot environment must
  // give the same pages (a boot that reads anything else from outside would differ in the next
  // process, where deltas against it could not be restored). Decided once; costs one more
  // boot, on the first use by a code context.
  std::shared_ptr<const SnapshotBase> snapshot_base();
  // A guest in the image's state, untracked, with the scratch workspace mounted: a reset one from
  // the idle list (a stateless run's, or an ended session's), or a new one.
  std::unique_ptr<PooledGuest> take_guest(const Image& image);
  // Resets `guest` to the image and keeps it for a later run or session, or drops it (see
  // reset_to_image; also when language.idle_instances are already kept). The guest must be
  // untracked and have its scratch workspace mounted.
  void give_back(std::unique_ptr<PooledGuest> guest, const Image& image);
  // How many guests the idle list holds now (for tests).
  std::size_t idle_guests();

  wasm::Module module;
  EmbeddedLanguage language;
  std::shared_ptr<const EmbeddedDriver> driver;
  std::string build;
  std::unique_ptr<wasm::MemoryPool> pool;  // null when pooled_memories == 0
  SystemClock clock;                       // for the disabled scratch workspace of run()

 private:
  std::mutex image_mu_;
  std::shared_ptr<const Image> image_;
  std::mutex base_mu_;
  bool base_decided_ = false;
  std::shared_ptr<const SnapshotBase> base_;
  std::mutex idle_mu_;
  std::vector<std::unique_ptr<PooledGuest>> idle_;
};

}  // namespace sandbox::embedded

// EngineState: what every run and session of one prebuilt-interpreter engine shares.
#pragma once

#include <sandbox/clock.h>
#include <sandbox/wasm.h>
#include <sandbox/workspace.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "guest.h"
#include "image.h"
#include "preinit_engine.h"

namespace sandbox::preinit {

// A guest for stateless runs with its scratch /workspace (disabled: a run has no workspace).
struct StatelessGuest {
  StatelessGuest(const GuestConfig& config, const Clock& clock);
  Workspace scratch;  // declared first: outlives the guest's WASI host
  Guest guest;
};

// Members are destroyed in reverse order: idle instances before the pool their memories return
// to, the clock their workspaces use, and the module and driver they point to.
struct EngineState {
  EngineState(const wasm::Module& m, PreinitLanguage l);

  // The configuration of the guests that run requests (the language's fuel and call timeout).
  GuestConfig run_config() const;
  // The image, captured on first use; a failed capture throws and is retried next time.
  std::shared_ptr<const Image> image();
  // A guest in the image's state: a reset one from the idle list, or a new one.
  std::unique_ptr<StatelessGuest> take_guest(const Image& image);
  // Resets `guest` to the image and keeps it for a later run, or drops it (see reset_to_image;
  // also when language.idle_instances are already kept).
  void give_back(std::unique_ptr<StatelessGuest> guest, const Image& image);

  wasm::Module module;
  PreinitLanguage language;
  std::string build;
  std::unique_ptr<wasm::MemoryPool> pool;  // null when pooled_memories == 0
  SystemClock clock;                       // for the disabled scratch workspace of run()

 private:
  std::mutex image_mu_;
  std::shared_ptr<const Image> image_;
  std::mutex idle_mu_;
  std::vector<std::unique_ptr<StatelessGuest>> idle_;
};

}  // namespace sandbox::preinit

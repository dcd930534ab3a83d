// playground_static_files() of a build without the Playground (SANDBOX_BUILD_PLAYGROUND=OFF).
#include "playground/playground_files.h"

namespace sandbox {

bool playground_built() { return false; }

std::shared_ptr<const StaticFiles> playground_static_files() {
  return playground_not_built_files();
}

}  // namespace sandbox

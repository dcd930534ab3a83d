// The Playground's files as embedded in the binary at build time (src/playground/CMakeLists.txt,
// docs/sandbox-api.md#playground): `/` (the page), `/playground.css` and `/playground.js` (the
// bundle of web/playground/src).
#pragma once

#include <memory>

#include "server/static_files.h"

namespace sandbox {

// The same immutable set on every call (the bodies are the embedded data).
std::shared_ptr<const StaticFiles> playground_static_files();

}  // namespace sandbox

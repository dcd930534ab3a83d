// The Playground's files as embedded in the binary at build time (src/playground/CMakeLists.txt,
// docs/sandbox-api.md#playground): `/` (the page), `/playground.css` and `/playground.js` (the
// bundle of web/playground/src), or a page saying it was not built.
#pragma once

#include <memory>

#include "server/static_files.h"

namespace sandbox {

// The same immutable set on every call (the bodies are the embedded data). In a build without
// the Playground (SANDBOX_BUILD_PLAYGROUND=OFF), playground_not_built_files().
std::shared_ptr<const StaticFiles> playground_static_files();

// Whether this build embeds the Playground (the CMake option SANDBOX_BUILD_PLAYGROUND).
bool playground_built();

// What a build without the Playground serves: `/` is a page saying that it was not built and
// naming the build option; `/playground.js` and `/playground.css` are not there (404, B4).
std::shared_ptr<const StaticFiles> playground_not_built_files();

}  // namespace sandbox

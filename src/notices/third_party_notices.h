// The third-party notices of this build (docs/redistribution.md#third-party-notices): the text
// of THIRD_PARTY_NOTICES, generated at build time from the licence files of the pinned fetches
// (cmake/SandboxNotices.cmake) and linked into the program (src/notices/CMakeLists.txt), so that
// `sandboxd --licenses` needs no file beside the binary.
//
// Thread-safety: read-only data, safe from any thread.
#pragma once

#include <string_view>

namespace sandbox {

// The whole text, byte for byte the build tree's THIRD_PARTY_NOTICES. Never fails.
std::string_view third_party_notices();

}  // namespace sandbox

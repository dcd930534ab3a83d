// SHA-256 (FIPS 180-4), for build ids: the core libraries carry no crypto dependency, and a
// build id hashes a few kilobytes once per engine.
#pragma once

#include <string>
#include <string_view>

namespace sandbox::embedded {

// The lowercase hex digest of `bytes`.
std::string sha256_hex(std::string_view bytes);

}  // namespace sandbox::embedded

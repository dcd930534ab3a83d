// Builds ZIP archives for StdlibTree tests.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sandbox::testing_wasi {

// An archive of `entries` (name, bytes), every entry with compression `method` (0 = stored;
// the bytes are stored as given whatever the method says).
std::vector<std::uint8_t> make_stored_zip(
    const std::vector<std::pair<std::string, std::string>>& entries, std::uint16_t method = 0);

}  // namespace sandbox::testing_wasi

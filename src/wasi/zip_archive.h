// Reading an uncompressed ZIP archive: the entries of its central directory, each pointing at
// its stored bytes inside the archive. Only method 0 ("stored") without ZIP64 is supported; the
// archive is the engine's own build artifact, but it is still parsed defensively (every offset
// checked, every CRC-32 verified).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sandbox::wasi {

struct ZipEntry {
  std::string name;
  std::span<const std::uint8_t> data;  // into the archive
};

// Throws std::runtime_error naming the problem (truncated archive, unsupported compression,
// CRC mismatch, ...).
std::vector<ZipEntry> read_zip_entries(std::span<const std::uint8_t> archive);

std::uint32_t crc32(std::span<const std::uint8_t> bytes);

}  // namespace sandbox::wasi

#include "wasi/zip_archive.h"

#include <array>
#include <stdexcept>

namespace sandbox::wasi {
namespace {

constexpr std::uint32_t kEndOfCentralDirectory = 0x06054b50;
constexpr std::uint32_t kCentralDirectoryHeader = 0x02014b50;
constexpr std::uint32_t kLocalFileHeader = 0x04034b50;
constexpr std::size_t kEocdSize = 22;
constexpr std::size_t kCentralHeaderSize = 46;
constexpr std::size_t kLocalHeaderSize = 30;

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
  bool has(std::uint64_t offset, std::uint64_t len) const {
    return offset <= bytes_.size() && len <= bytes_.size() - offset;
  }
  std::uint16_t u16(std::uint64_t offset) const {
    need(offset, 2);
    return static_cast<std::uint16_t>(bytes_[offset] | bytes_[offset + 1] << 8);
  }
  std::uint32_t u32(std::uint64_t offset) const {
    need(offset, 4);
    return static_cast<std::uint32_t>(bytes_[offset]) |
           static_cast<std::uint32_t>(bytes_[offset + 1]) << 8 |
           static_cast<std::uint32_t>(bytes_[offset + 2]) << 16 |
           static_cast<std::uint32_t>(bytes_[offset + 3]) << 24;
  }
  std::span<const std::uint8_t> slice(std::uint64_t offset, std::uint64_t len) const {
    need(offset, len);
    return bytes_.subspan(offset, len);
  }

 private:
  void need(std::uint64_t offset, std::uint64_t len) const {
    if (!has(offset, len)) throw std::runtime_error("ZIP archive is truncated");
  }
  std::span<const std::uint8_t> bytes_;
};

std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}

}  // namespace

std::uint32_t crc32(std::span<const std::uint8_t> bytes) {
  static const std::array<std::uint32_t, 256> table = make_crc_table();
  std::uint32_t c = 0xffffffffu;
  for (std::uint8_t b : bytes) c = table[(c ^ b) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

std::vector<ZipEntry> read_zip_entries(std::span<const std::uint8_t> archive) {
  const Reader r(archive);
  if (archive.size() < kEocdSize) throw std::runtime_error("Not a ZIP archive (too short)");
  // The end-of-central-directory record is followed by a comment of at most 65,535 bytes.
  std::uint64_t eocd = archive.size() - kEocdSize;
  const std::uint64_t lowest =
      archive.size() > kEocdSize + 65'535 ? archive.size() - kEocdSize - 65'535 : 0;
  while (true) {
    if (r.u32(eocd) == kEndOfCentralDirectory) break;
    if (eocd == lowest) throw std::runtime_error("Not a ZIP archive (no end of central directory)");
    --eocd;
  }
  const std::uint16_t disk = r.u16(eocd + 4);
  const std::uint16_t cd_disk = r.u16(eocd + 6);
  const std::uint16_t count = r.u16(eocd + 10);
  const std::uint32_t cd_size = r.u32(eocd + 12);
  const std::uint32_t cd_offset = r.u32(eocd + 16);
  if (disk != 0 || cd_disk != 0)
    throw std::runtime_error("Multi-volume ZIP archives are not supported");
  if (count == 0xffff || cd_offset == 0xffffffffu) {
    throw std::runtime_error("ZIP64 archives are not supported");
  }
  if (!r.has(cd_offset, cd_size)) throw std::runtime_error("ZIP archive is truncated");

  std::vector<ZipEntry> entries;
  entries.reserve(count);
  std::uint64_t p = cd_offset;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (r.u32(p) != kCentralDirectoryHeader) {
      throw std::runtime_error("Corrupt ZIP central directory");
    }
    const std::uint16_t flags = r.u16(p + 8);
    const std::uint16_t method = r.u16(p + 10);
    const std::uint32_t crc = r.u32(p + 16);
    const std::uint32_t compressed = r.u32(p + 20);
    const std::uint32_t size = r.u32(p + 24);
    const std::uint16_t name_len = r.u16(p + 28);
    const std::uint16_t extra_len = r.u16(p + 30);
    const std::uint16_t comment_len = r.u16(p + 32);
    const std::uint32_t local = r.u32(p + 42);
    const auto name_bytes = r.slice(p + kCentralHeaderSize, name_len);
    std::string name(name_bytes.begin(), name_bytes.end());
    p += kCentralHeaderSize + name_len + extra_len + comment_len;

    if (flags & 1) throw std::runtime_error("Encrypted ZIP entry: " + name);
    if (method != 0) {
      throw std::runtime_error("Unsupported ZIP compression method " + std::to_string(method) +
                               " for " + name + " (only stored entries are supported)");
    }
    if (compressed == 0xffffffffu || size == 0xffffffffu || local == 0xffffffffu) {
      throw std::runtime_error("ZIP64 entries are not supported: " + name);
    }
    if (compressed != size) throw std::runtime_error("Corrupt ZIP entry sizes: " + name);
    if (r.u32(local) != kLocalFileHeader)
      throw std::runtime_error("Corrupt ZIP local header: " + name);
    const std::uint64_t data_offset = local + kLocalHeaderSize + r.u16(local + 26) +
                                      static_cast<std::uint64_t>(r.u16(local + 28));
    const auto data = r.slice(data_offset, size);
    if (crc32(data) != crc) throw std::runtime_error("ZIP entry CRC mismatch: " + name);
    entries.push_back(ZipEntry{std::move(name), data});
  }
  return entries;
}

}  // namespace sandbox::wasi

// What the kernel says about this process's memory, for tests that check how much memory is
// shared or private: /proc/self/smaps_rollup and /proc/self/pagemap (proc(5)).
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace sandbox::testing_support {

// Kilobytes of a field of /proc/self/smaps_rollup ("Rss", "Pss", "Pss_Anon", ...); 0 when the
// field is missing.
inline std::uint64_t rollup_kib(const std::string& field) {
  std::ifstream in("/proc/self/smaps_rollup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stoull(line.substr(field.size() + 1));
  }
  return 0;
}

// The /proc/self/pagemap entry of the 4 KiB page at `address` (bit 63: present; bit 61: a file
// page or shared anonymous memory, rather than a private copy); all ones when unreadable.
inline std::uint64_t pagemap_entry(const void* address) {
  const int fd = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ~std::uint64_t{0};
  std::uint64_t entry = 0;
  const auto offset = static_cast<off_t>(reinterpret_cast<std::uintptr_t>(address) / 4096 * 8);
  const bool ok = ::pread(fd, &entry, sizeof entry, offset) == static_cast<ssize_t>(sizeof entry);
  ::close(fd);
  return ok ? entry : ~std::uint64_t{0};
}

}  // namespace sandbox::testing_support

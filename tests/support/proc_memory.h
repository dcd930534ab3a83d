// What the kernel says about this process's memory, for tests that check how much memory is
// shared or private: /proc/self/smaps_rollup, /proc/self/smaps and /proc/self/pagemap (proc(5)),
// and the calling thread's own counts (getrusage(RUSAGE_THREAD)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

namespace sandbox::testing_support {

// Minor page faults the calling thread has taken so far (getrusage(RUSAGE_THREAD)): a count the
// same on every host, unaffected by what other threads do meanwhile.
inline long thread_minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_minflt;
}

// Voluntary context switches of the calling thread so far (each time it slept waiting for
// something): the same on every host, unaffected by what other threads do meanwhile.
inline long thread_voluntary_switches() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_nvcsw;
}

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

// Kilobytes of a field of /proc/self/smaps ("Rss", "Pss", ...) summed over the mappings that
// overlap [begin, begin + size): what one region (a wasm memory, say) costs, unaffected by what
// the rest of the process (its allocator, a sanitizer's shadow memory, another thread's stack)
// does meanwhile, which a whole-process figure from smaps_rollup counts too.
inline std::uint64_t smaps_kib_in(const std::string& field, const void* begin, std::size_t size) {
  const auto lo = reinterpret_cast<std::uintptr_t>(begin);
  const std::uintptr_t hi = lo + size;
  std::ifstream in("/proc/self/smaps");
  std::string line;
  bool inside = false;
  std::uint64_t kib = 0;
  while (std::getline(in, line)) {
    // A mapping's first line is "start-end perms offset dev inode [path]", in hexadecimal; its
    // fields follow as "Name:   N kB", names starting with a capital letter.
    const std::size_t dash = line.find('-');
    const std::size_t space = line.find(' ');
    if (dash != std::string::npos && space != std::string::npos && dash < space && line[0] >= '0' &&
        (line[0] <= '9' || (line[0] >= 'a' && line[0] <= 'f'))) {
      const std::uintptr_t start = std::stoull(line.substr(0, dash), nullptr, 16);
      const std::uintptr_t end = std::stoull(line.substr(dash + 1, space - dash - 1), nullptr, 16);
      inside = start < hi && lo < end;
    } else if (inside && line.rfind(field + ":", 0) == 0) {
      kib += std::stoull(line.substr(field.size() + 1));
    }
  }
  return kib;
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

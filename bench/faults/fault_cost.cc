// fault-cost: what a minor page fault costs on this host, the unit that turns the page-fault
// counts of bench/run into time (docs/benchmarks.md). A restore after a restart faults hundreds
// of times (bench/results.md), so its time moves with this from host to host: about 1 µs where
// faults are cheap, 15-35 µs under nested virtualisation.
//
//   fault-cost [-n PAGES] [--rounds N]
//
// Each round maps PAGES fresh 4 KiB pages of private anonymous memory (transparent huge pages
// off for it, so each page is its own fault) and writes one byte to each: the time per page, and
// the minor faults per page that getrusage(2) counted, which should be 1. Then it maps as many
// again and has the kernel make them all at once (MADV_POPULATE_WRITE): the time per page that
// way, or `none` where the kernel lacks it (before Linux 5.14).
//
// Prints one line, the median of the rounds:
//   fault_us=<us> faults_per_page=<n> populate_us=<us|none> pages=<n>
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <sys/resource.h>

namespace {

#ifndef MADV_POPULATE_WRITE
constexpr int MADV_POPULATE_WRITE = 23;  // Linux 5.14; older headers lack it
#endif

constexpr std::size_t kPageBytes = 4096;
constexpr long kMaxPages = 1L << 20;  // 4 GiB of address space at most
constexpr int kMaxRounds = 1000;

using Clock = std::chrono::steady_clock;

double micros(Clock::duration d) {
  return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count()) /
         1000.0;
}

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// Fresh pages: private, anonymous, never touched, each faulted on its own.
char* map_pages(std::size_t pages) {
  void* p = mmap(nullptr, pages * kPageBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    std::perror("fault-cost: mmap");
    std::exit(2);
  }
  madvise(p, pages * kPageBytes, MADV_NOHUGEPAGE);  // best effort: without THP it is the default
  return static_cast<char*>(p);
}

struct Round {
  double fault_us = 0;
  double faults_per_page = 0;
  std::optional<double> populate_us;
};

Round measure(std::size_t pages) {
  Round r;
  char* memory = map_pages(pages);
  const long faults_before = minor_faults();
  const auto start = Clock::now();
  for (std::size_t i = 0; i < pages; ++i) {
    *static_cast<volatile char*>(memory + i * kPageBytes) = 1;
  }
  const auto elapsed = Clock::now() - start;
  r.faults_per_page =
      static_cast<double>(minor_faults() - faults_before) / static_cast<double>(pages);
  r.fault_us = micros(elapsed) / static_cast<double>(pages);
  munmap(memory, pages * kPageBytes);

  memory = map_pages(pages);
  const auto populate_start = Clock::now();
  if (madvise(memory, pages * kPageBytes, MADV_POPULATE_WRITE) == 0) {
    r.populate_us = micros(Clock::now() - populate_start) / static_cast<double>(pages);
  }
  munmap(memory, pages * kPageBytes);
  return r;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

int usage() {
  std::fprintf(stderr, "usage: fault-cost [-n PAGES] [--rounds N]\n");
  return 2;
}

// A whole number in [1, max], or nullopt.
std::optional<long> count_arg(const char* text, long max) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 1 || value > max) return std::nullopt;
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  long pages = 4096;
  long rounds = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return usage();
    std::optional<long> value;
    if (arg == "-n") {
      value = count_arg(argv[++i], kMaxPages);
      if (value) pages = *value;
    } else if (arg == "--rounds") {
      value = count_arg(argv[++i], kMaxRounds);
      if (value) rounds = *value;
    } else {
      return usage();
    }
    if (!value) return usage();
  }
  std::vector<double> fault_us, faults_per_page, populate_us;
  for (long round = 0; round < rounds; ++round) {
    const Round r = measure(static_cast<std::size_t>(pages));
    fault_us.push_back(r.fault_us);
    faults_per_page.push_back(r.faults_per_page);
    if (r.populate_us) populate_us.push_back(*r.populate_us);
  }
  std::string populate = "none";
  if (populate_us.size() == fault_us.size()) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", median(populate_us));
    populate = text;
  }
  std::printf("fault_us=%.2f faults_per_page=%.2f populate_us=%s pages=%ld\n", median(fault_us),
              median(faults_per_page), populate.c_str(), pages);
  return 0;
}

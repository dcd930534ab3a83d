// bench_wasm: the three numbers of the Wasm runtime's "done when", measured in one run with
// their baselines:
//   1. cpu_bench compiled through the pipeline with fuel, against the same C compiled natively
//      (gcc -O2): target ratio <= 1.3
//   2. instantiate + free of a small module, per instance: target <= 100 us (also with a pool)
//   3. fuel overhead: the metered module against the same module without fuel: target <= 15%
// Each time is this thread's CPU time, the minimum of several runs (the machine is shared;
// minima of CPU time are the stable statistic). Usage: bench_wasm [scale] [runs]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>

#include <sandbox/wasm.h>

#include "bench_cpu_fuel.h"
#include "bench_cpu_plain.h"
#include "bench_tiny.h"

// The native build of cpu_bench.c.
extern "C" std::uint32_t cpu_bench(std::uint32_t scale);
extern "C" std::uint32_t cpu_kernel(std::uint32_t kernel, std::uint32_t scale);

namespace {

// CPU time of this thread: on a shared machine it is far steadier than wall time, and both
// sides of every ratio are measured the same way.
double thread_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double seconds_of(const std::function<void()>& f) {
  double start = thread_seconds();
  f();
  return thread_seconds() - start;
}

double min_of(int runs, const std::function<void()>& f) {
  double best = 1e30;
  for (int i = 0; i < runs; ++i) best = std::min(best, seconds_of(f));
  return best;
}

const char* verdict(bool ok) { return ok ? "ok" : "MISSED"; }

}  // namespace

int main(int argc, char** argv) {
  using namespace sandbox::wasm;
  std::uint32_t scale = argc > 1 ? static_cast<std::uint32_t>(std::atoi(argv[1])) : 1;
  int runs = argc > 2 ? std::atoi(argv[2]) : 5;
  prepare_thread();

  // ---- 1 and 3: CPU ----
  std::uint32_t native_result = 0;
  double native = min_of(runs, [&] { native_result = cpu_bench(scale); });

  Module fuel_module(*sandbox_wasm_module_bench_cpu_fuel());
  Module plain_module(*sandbox_wasm_module_bench_cpu_plain());
  auto fueled = Instance::create(fuel_module, {});
  auto plain = Instance::create(plain_module, {});
  auto fuel_fn = fuel_module.function<std::uint32_t(std::uint32_t)>("cpu_bench");
  auto plain_fn = plain_module.function<std::uint32_t(std::uint32_t)>("cpu_bench");
  std::uint32_t fuel_result = 0, plain_result = 0;
  std::uint64_t fuel_used = 0;
  double with_fuel = 1e30, without_fuel = 1e30;
  // Interleaved, so both see the same machine load.
  for (int i = 0; i < runs; ++i) {
    with_fuel = std::min(with_fuel, seconds_of([&] {
                           fueled->set_fuel(INT64_MAX);
                           auto r = fuel_fn(*fueled, scale);
                           fuel_result = r.value;
                           fuel_used = fueled->fuel_consumed();
                           if (!r.ok()) std::fprintf(stderr, "trap: %s\n", r.trap.message.c_str());
                         }));
    without_fuel = std::min(without_fuel, seconds_of([&] {
                              auto r = plain_fn(*plain, scale);
                              plain_result = r.value;
                              if (!r.ok())
                                std::fprintf(stderr, "trap: %s\n", r.trap.message.c_str());
                            }));
  }
  if (fuel_result != native_result || plain_result != native_result) {
    std::fprintf(stderr, "result mismatch: native %u, fuel %u, plain %u\n", native_result,
                 fuel_result, plain_result);
    return 1;
  }

  // Per kernel, to see where a difference comes from (min of runs, interleaved).
  static constexpr const char* kKernels[] = {"hash+calls", "sieve", "interpreter", "quicksort"};
  auto kernel_fuel =
      fuel_module.function<std::uint32_t(std::uint32_t, std::uint32_t)>("cpu_kernel");
  auto kernel_plain =
      plain_module.function<std::uint32_t(std::uint32_t, std::uint32_t)>("cpu_kernel");
  double kernel_times[4][3];
  for (std::uint32_t k = 0; k < 4; ++k) {
    kernel_times[k][0] = kernel_times[k][1] = kernel_times[k][2] = 1e30;
    for (int i = 0; i < runs; ++i) {
      kernel_times[k][0] = std::min(kernel_times[k][0], seconds_of([&] { cpu_kernel(k, scale); }));
      kernel_times[k][1] = std::min(kernel_times[k][1], seconds_of([&] {
                                      fueled->set_fuel(INT64_MAX);
                                      kernel_fuel(*fueled, k, scale);
                                    }));
      kernel_times[k][2] =
          std::min(kernel_times[k][2], seconds_of([&] { kernel_plain(*plain, k, scale); }));
    }
  }

  // ---- 2: instantiate + free ----
  Module tiny(*sandbox_wasm_module_bench_tiny());
  constexpr int kInstances = 2000;
  auto per_instance = [&](MemoryPool* pool) {
    return min_of(runs,
                  [&] {
                    for (int i = 0; i < kInstances; ++i) {
                      auto inst = Instance::create(tiny, {.pool = pool});
                    }
                  }) /
           kInstances;
  };
  double inst_plain = per_instance(nullptr);
  MemoryPool pool(16);
  double inst_pooled = per_instance(&pool);

  // Host -> guest call overhead (a trivial export, through a checked Function handle).
  auto tiny_instance = Instance::create(tiny, {});
  auto add = tiny.function<std::uint32_t(std::uint32_t, std::uint32_t)>("add");
  constexpr int kCalls = 1'000'000;
  std::uint32_t sum = 0;
  double per_call = min_of(runs,
                           [&] {
                             for (int i = 0; i < kCalls; ++i)
                               sum += add(*tiny_instance, i, 1).value;
                           }) /
                    kCalls;
  if (sum == 0) std::printf("(unlikely)\n");

  double ratio = with_fuel / native;
  double overhead = with_fuel / without_fuel - 1.0;
  std::printf("bench_wasm (scale %u, thread CPU time, min of %d runs)\n", scale, runs);
  std::printf("  cpu_bench native gcc -O2        %8.3f s\n", native);
  std::printf("  cpu_bench wasm2c, fuel          %8.3f s   (%llu fuel units)\n", with_fuel,
              static_cast<unsigned long long>(fuel_used));
  std::printf("  cpu_bench wasm2c, no fuel       %8.3f s\n", without_fuel);
  std::printf("  instantiate+free (mmap/munmap)  %8.1f us\n", inst_plain * 1e6);
  std::printf("  instantiate+free (pooled)       %8.1f us\n", inst_pooled * 1e6);
  std::printf("  guest call overhead             %8.1f ns\n", per_call * 1e9);
  std::printf("  per kernel (native / fuel / no fuel, seconds):\n");
  for (int k = 0; k < 4; ++k) {
    std::printf("    %-12s %7.3f %7.3f %7.3f   ratio %.2f, fuel %+.1f%%\n", kKernels[k],
                kernel_times[k][0], kernel_times[k][1], kernel_times[k][2],
                kernel_times[k][1] / kernel_times[k][0],
                (kernel_times[k][1] / kernel_times[k][2] - 1) * 100);
  }
  std::printf("results:\n");
  std::printf("  wasm+fuel / native      %6.2f   (target <= 1.30) %s\n", ratio,
              verdict(ratio <= 1.3));
  std::printf("  instantiate+free        %6.1f us (target <= 100 us) %s; pooled %.1f us %s\n",
              inst_plain * 1e6, verdict(inst_plain <= 100e-6), inst_pooled * 1e6,
              verdict(inst_pooled <= 100e-6));
  std::printf("  fuel overhead           %+5.1f%%  (target <= 15%%) %s\n", overhead * 100,
              verdict(overhead <= 0.15));
  return 0;
}

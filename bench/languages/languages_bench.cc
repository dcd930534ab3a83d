// bench/languages: what each language engine costs, measured through its sandbox::Engine.
//
//   languages-bench [--runs N] [--cpu-only] [LANGUAGE...]
// (default: every language in kLanguages; --cpu-only: only the CPU workload, which run.sh
// alternates with the native interpreter's run of the same file).
//
// For each language:
//   - cold start: the first run of a new Engine (for ruby and perl this boots the
//     post-initialisation image);
//   - stateless `1 + 1`: p50/p90 wall time and p50 thread CPU time over N runs (target for
//     ruby and perl: p50 <= 10 ms);
//   - a CPU workload (workloads/cpu.<ext>, the same file run.sh times natively): best of 5
//     evaluations;
//   - code contexts over SQLite: the first snapshot (non-zero pages, chunk rows, compressed
//     bytes), a typical step (chunk rows and bytes written), and the cold restore after a
//     restart (a new store handle and server over the same file: the first execute, p50 of 5).
// Add a language by adding a row to kLanguages (its registry name, programs and workload file).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

#include <sandbox/interpreter.h>

#include "interpreter/over_store.h"
#include "registry.h"
#include "storage/sqlite/sqlite_stores.h"
#include "support/counting_store.h"

namespace {

using namespace sandbox;
using bench::CountingStore;
using SteadyClock = std::chrono::steady_clock;

struct Language {
  const char* name;      // as in the engine registry
  const char* simple;    // evaluates 1 + 1
  const char* workload;  // file in workloads/
  const char* define;    // context: defines state
  const char* step;      // context: a small change
  const char* probe;     // context: reads the state back
};

constexpr Language kLanguages[] = {
    {"lua", "1 + 1", "cpu.lua", "counter = 0; function bump() counter = counter + 1 end", "bump()",
     "counter"},
    {"javascript", "1 + 1", "cpu.js", "var counter = 0; function bump() { counter += 1; }",
     "bump()", "counter"},
    {"python", "1 + 1", "cpu.py", "counter = 0\ndef bump():\n    global counter\n    counter += 1",
     "bump()", "counter"},
    {"ruby", "1 + 1", "cpu.rb", "$counter = 0; def bump = $counter += 1; nil", "bump", "$counter"},
    {"perl", "1 + 1", "cpu.pl", "our $counter = 0; sub bump { ++$counter } 1", "bump()",
     "$counter"},
};

double ms_since(SteadyClock::time_point t) {
  return std::chrono::duration<double, std::milli>(SteadyClock::now() - t).count();
}

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(1);
  }
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs `code` statelessly; exits on an error (a benchmark of a failing program means nothing).
EngineOutcome run_ok(const Engine& engine, const std::string& code) {
  EngineOutcome o = engine.run({code, {}});
  if (o.error) {
    std::fprintf(stderr, "%s: %s: %s\n", engine.language.c_str(), o.error->name.c_str(),
                 o.error->message.c_str());
    std::exit(1);
  }
  return o;
}

void bench_stateless(const Language& lang, const Engine& engine, double cold, int runs) {
  SteadyClock::time_point t;

  std::vector<double> wall, cpu;
  for (int i = 0; i < runs; ++i) {
    const double c = thread_cpu_ms();
    t = SteadyClock::now();
    static_cast<void>(run_ok(engine, lang.simple));
    wall.push_back(ms_since(t));
    cpu.push_back(thread_cpu_ms() - c);
  }
  std::printf(
      "%-6s cold start (first run) %7.1f ms | stateless %s: p50 %5.2f ms, p90 %5.2f ms, "
      "cpu p50 %5.2f ms (%d runs)\n",
      lang.name, cold, lang.simple, percentile(wall, 0.5), percentile(wall, 0.9),
      percentile(cpu, 0.5), runs);
}

// The CPU workload: best of 5 evaluations (the first one included: there is no JIT to warm).
void bench_workload(const Language& lang, const Engine& engine) {
  const std::string workload =
      read_file(std::filesystem::path(SANDBOX_BENCH_WORKLOADS) / lang.workload);
  double best = 1e300;
  std::uint64_t fuel = 0;
  std::string result;
  for (int i = 0; i < 5; ++i) {
    const auto t = SteadyClock::now();
    const EngineOutcome o = run_ok(engine, workload);
    best = std::min(best, ms_since(t));
    if (o.usage) fuel = o.usage->fuel_consumed;
    if (!o.results.empty() && o.results[0].text) result = *o.results[0].text;
  }
  std::printf("%-6s workload %s: best %7.1f ms, %llu fuel of %llu (result %s)\n", lang.name,
              lang.workload, best, static_cast<unsigned long long>(fuel),
              static_cast<unsigned long long>(engine.limits.fuel), result.c_str());
}

void bench_contexts(const Language& lang, const std::filesystem::path& dir) {
  const auto* entry = engines::find_engine(lang.name);
  const Engine engine = entry->make();
  if (!engine.sessions) {
    std::printf("%-6s contexts: not supported\n", lang.name);
    return;
  }
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string db = (dir / "bench.sqlite").string();
  ManualClock clock;
  const InterpreterServerOptions options{.idle_ttl_ms = 0, .max_resident_instances = 4};
  auto exec = [&](InterpreterServer& s, const char* code) {
    auto r = s.execute_in_context("bench", {"ctx", code, {}, {}}, nullptr);
    if (std::holds_alternative<InterpreterCallError>(r)) {
      std::fprintf(stderr, "execute failed: %s\n",
                   std::get<InterpreterCallError>(r).body.message.c_str());
      std::exit(1);
    }
    auto ok = std::get<InterpreterExecuteResponse>(std::move(r));
    if (ok.result.outcome.error) {
      std::fprintf(stderr, "guest error: %s\n", ok.result.outcome.error->message.c_str());
      std::exit(1);
    }
    return ok;
  };

  std::uint32_t first_pages = 0;
  std::uint64_t first_chunks = 0, first_bytes = 0;
  double first_ms = 0;
  const int steps = 20;
  std::vector<double> step_ms;
  std::uint64_t step_chunks = 0, step_bytes = 0;
  {
    SqliteStorage storage(db);
    CountingStore counting(storage.interpreters());
    const auto server = make_interpreter_server(engine, counting, clock, options);
    server->handle("bench", "POST", "/contexts", R"({"id":"ctx"})");
    auto t = SteadyClock::now();
    const auto first = exec(*server, lang.define);
    first_ms = ms_since(t);
    first_pages = first.context.snapshot ? first.context.snapshot->pages : 0;
    first_chunks = counting.chunks;
    first_bytes = counting.bytes;
    counting.reset();
    for (int i = 0; i < steps; ++i) {
      t = SteadyClock::now();
      exec(*server, lang.step);
      step_ms.push_back(ms_since(t));
    }
    step_chunks = counting.chunks;
    step_bytes = counting.bytes;
  }
  std::vector<double> restores;
  for (int i = 0; i < 5; ++i) {
    SqliteStorage storage(db);  // a restart: new database handle, new server, nothing resident
    const auto server = make_interpreter_server(engine, storage.interpreters(), clock, options);
    const auto t = SteadyClock::now();
    exec(*server, lang.probe);
    restores.push_back(ms_since(t));
  }
  std::printf(
      "%-6s contexts: first execute %6.1f ms, first snapshot %u pages in %llu chunks "
      "(%.1f MiB zstd) | step p50 %6.2f ms, %.1f chunks (%.0f KiB) per step | cold "
      "restore after restart p50 %6.1f ms\n",
      lang.name, first_ms, first_pages, static_cast<unsigned long long>(first_chunks),
      static_cast<double>(first_bytes) / (1 << 20), percentile(step_ms, 0.5),
      static_cast<double>(step_chunks) / steps, static_cast<double>(step_bytes) / steps / 1024,
      percentile(restores, 0.5));
  std::filesystem::remove_all(dir);
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 200;
  bool cpu_only = false;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--cpu-only") == 0) {
      cpu_only = true;
    } else {
      only.emplace_back(argv[i]);
    }
  }
  const auto dir =
      std::filesystem::temp_directory_path() / ("languages-bench-" + std::to_string(::getpid()));
  for (const Language& lang : kLanguages) {
    if (!only.empty() && std::find(only.begin(), only.end(), lang.name) == only.end()) continue;
    if (engines::find_engine(lang.name) == nullptr) {
      std::printf("%-6s not built into this tree\n", lang.name);
      continue;
    }
    const auto t = SteadyClock::now();
    const Engine engine = engines::find_engine(lang.name)->make();
    static_cast<void>(run_ok(engine, lang.simple));
    const double cold = ms_since(t);
    if (!cpu_only) bench_stateless(lang, engine, cold, runs);
    bench_workload(lang, engine);
    if (!cpu_only) bench_contexts(lang, dir);
  }
  return 0;
}

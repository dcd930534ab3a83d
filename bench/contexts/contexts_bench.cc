// bench/contexts: the cost of durable code contexts on a 32 MiB image with a one-page change per
// step. Prints, in one run:
//   - the execute round trip with a resident instance, snapshot included, with and without the
//     engine reporting dirty pages (write tracking) — target <= 2 ms;
//   - a cold restore from SQLite after a restart (new server over the same file) — target <= 50 ms;
//   - bytes and chunk rows written per step.
// Two engines: the fake session engine of the tests (its memory is a plain buffer, so the
// numbers are the server's own costs: hashing, chunking, zstd, SQLite), with and without
// reported dirty pages; and the real `kv` Wasm engine (wasm2c instance, WASI, the embedded
// host, the runtime's write tracking), whose image is grown to 32 MiB with `alloc`.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <numeric>

#include <sandbox/interpreter.h>
#include <sandbox/wasm.h>

#include "interpreter/over_store.h"
#include "kv/kv_engine.h"
#ifdef CONTEXTS_BENCH_LUA
#include "lua/lua_engine.h"
#endif
#include "storage/sqlite/sqlite_stores.h"
#include "support/counting_store.h"
#include "support/fake_session_engine.h"

namespace {

using namespace sandbox;
using bench::CountingStore;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * v.size()))];
}

struct EngineCase {
  const char* label;
  Engine engine;
  std::string setup;  // makes the image 32 MiB
  std::string step;   // changes about one page
  std::string probe;  // reads state back
};

struct Figures {
  double step_p50 = 0, snapshot_p50 = 0;
};

Figures run(const EngineCase& c, const std::filesystem::path& dir) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string db = (dir / "bench.sqlite").string();
  const Engine& engine = c.engine;
  ManualClock clock;
  SystemClock wall;
  Workspace caller(wall);
  const InterpreterServerOptions options{.idle_ttl_ms = 0, .max_resident_instances = 4};
  std::vector<double> snapshot_ms;
  auto exec = [&](InterpreterServer& s, const std::string& code) {
    auto r = s.execute_in_context("bench", {"ctx", code, {}, {}}, nullptr);
    if (std::holds_alternative<InterpreterCallError>(r)) {
      std::fprintf(stderr, "execute failed: %s\n",
                   std::get<InterpreterCallError>(r).body.message.c_str());
      std::exit(1);
    }
    const auto& ok = std::get<InterpreterExecuteResponse>(r);
    if (ok.result.outcome.error) {
      std::fprintf(stderr, "guest error: %s\n", ok.result.outcome.error->message.c_str());
      std::exit(1);
    }
    if (ok.context.snapshot_ms) snapshot_ms.push_back(*ok.context.snapshot_ms);
  };

  std::vector<double> steps;
  double bytes_per_step = 0, rows_per_step = 0;
  {
    SqliteStorage storage(db);
    CountingStore counting(storage.interpreters());
    const auto server = make_interpreter_server(engine, counting, clock, options);
    server->handle("bench", "POST", "/contexts", R"({"id":"ctx"})");
    exec(*server, c.setup);
    exec(*server, c.step);
    counting.reset();
    snapshot_ms.clear();
    const int n = 200;
    snapshot_ms.clear();
    for (int i = 0; i < n; ++i) {
      const auto t = Clock::now();
      exec(*server, c.step);
      steps.push_back(ms_since(t));
    }
    bytes_per_step = static_cast<double>(counting.bytes) / n;
    rows_per_step = static_cast<double>(counting.rows) / n;
  }
  std::vector<double> restores;
  for (int i = 0; i < 10; ++i) {
    SqliteStorage storage(db);  // a restart: new database handle, new server, nothing resident
    const auto server = make_interpreter_server(engine, storage.interpreters(), clock, options);
    const auto t = Clock::now();
    exec(*server, c.probe);
    restores.push_back(ms_since(t));
  }
  std::printf(
      "%-34s step p50 %6.2f ms (snapshot %5.2f) p99 %6.2f ms | cold restore p50 %6.1f ms | "
      "written/step %7.0f bytes, %.1f rows\n",
      c.label, percentile(steps, 0.5), percentile(snapshot_ms, 0.5), percentile(steps, 0.99),
      percentile(restores, 0.5), bytes_per_step, rows_per_step);
  return {percentile(steps, 0.5), percentile(snapshot_ms, 0.5)};
}

// The same engine with each write-tracking mode of the runtime
// (include/sandbox/wasm/write_tracking.h), with ratios against the mprotect tracker measured in the
// same run.
void compare_tracking(const char* name, const EngineCase& c, const std::filesystem::path& dir) {
  using wasm::WriteTracking;
  struct Mode {
    const char* label;
    WriteTracking mode;
  };
  std::vector<Mode> modes{{"mprotect", WriteTracking::kMprotect}, {"hash", WriteTracking::kNone}};
  if (wasm::userfaultfd_tracking_available()) {
    modes.insert(modes.begin() + 1, {"uffd", WriteTracking::kUserfaultfd});
  }
  std::vector<Figures> figures;
  for (const Mode& m : modes) {
    wasm::set_default_write_tracking(m.mode);
    const std::string label = std::string(name) + ", tracking " + m.label;
    EngineCase mc = c;
    mc.label = label.c_str();
    figures.push_back(run(mc, dir));
  }
  wasm::set_default_write_tracking(WriteTracking::kAuto);
  for (std::size_t i = 1; i < modes.size(); ++i) {
    std::printf("  %s: %s / mprotect: step %.2fx, snapshot %.2fx\n", name, modes[i].label,
                figures[i].step_p50 / figures[0].step_p50,
                figures[i].snapshot_p50 / figures[0].snapshot_p50);
  }
}

}  // namespace

int main() {
  const auto dir =
      std::filesystem::temp_directory_path() / ("contexts-bench-" + std::to_string(::getpid()));
  std::printf(
      "code contexts: 32 MiB image, one-page change per step (targets: step <= 2 ms, "
      "cold restore <= 50 ms)\n");
  test::FakeEngineStats plain, tracked;
  tracked.track_dirty = true;
  run({"fake engine, full memory hashing", test::make_fake_session_engine(plain), "grow 512",
       "incr", "get"},
      dir);
  run({"fake engine, dirty pages reported", test::make_fake_session_engine(tracked), "grow 512",
       "incr", "get"},
      dir);
  compare_tracking("kv (Wasm)", {"", engines::make_kv_engine(), "alloc 30", "incr n", "get n"},
                   dir);
#ifdef CONTEXTS_BENCH_LUA
  compare_tracking("lua", {"", engines::make_lua_engine(), "t = {} n = 0", "n = n + 1", "return n"},
                   dir);
#endif
  std::filesystem::remove_all(dir);
  return 0;
}

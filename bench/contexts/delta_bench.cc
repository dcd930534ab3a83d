// bench/contexts delta-bench: what a code context stores, with snapshots as deltas from the
// engine image (docs/snapshot-format.md#delta-encoding) against the older encoding (the memory
// itself, what an engine without an image base gets). Per engine and encoding, over real SQLite:
//   - stored bytes of a new context after one small execute (compressed chunk bytes);
//   - bytes written per step that changes one variable (mean over 50 steps);
//   - step p50 (execute + snapshot) and a cold restore after a restart.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include <sandbox/interpreter.h>

#include "interpreter/over_store.h"
#include "kv/kv_engine.h"
#include "storage/sqlite/sqlite_stores.h"
#include "support/counting_store.h"
#ifdef DELTA_BENCH_LUA
#include "lua/lua_engine.h"
#endif
#ifdef DELTA_BENCH_JAVASCRIPT
#include "javascript/javascript_engine.h"
#endif

namespace {

using namespace sandbox;
using bench::CountingStore;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

double p50(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Case {
  const char* language;
  Engine engine;
  std::string first;  // one small execute
  std::string step;   // changes one variable
  std::string probe;
};

void run(const Case& c, bool delta, const std::filesystem::path& dir) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string db = (dir / "bench.sqlite").string();
  Engine engine = c.engine;
  if (!delta && engine.sessions) engine.sessions->base = nullptr;  // the older encoding
  ManualClock clock;
  const InterpreterServerOptions options{.idle_ttl_ms = 0, .max_resident_instances = 4};
  auto exec = [&](InterpreterServer& s, const std::string& code) {
    auto r = s.execute_in_context("bench", {"ctx", code, {}, {}}, nullptr);
    const auto* ok = std::get_if<InterpreterExecuteResponse>(&r);
    if (!ok || ok->result.outcome.error) {
      std::fprintf(stderr, "%s: execute failed\n", c.language);
      std::exit(1);
    }
  };
  std::uint64_t first_bytes = 0;
  double per_step = 0;
  std::vector<double> steps, restores;
  {
    SqliteStorage storage(db);
    CountingStore counting(storage.interpreters());
    const auto server = make_interpreter_server(engine, counting, clock, options);
    server->handle("bench", "POST", "/contexts", R"({"id":"ctx"})");
    counting.reset();
    exec(*server, c.first);
    first_bytes = counting.bytes;
    counting.reset();
    const int n = 50;
    for (int i = 0; i < n; ++i) {
      const auto t = Clock::now();
      exec(*server, c.step);
      steps.push_back(ms_since(t));
    }
    per_step = static_cast<double>(counting.bytes) / n;
  }
  for (int i = 0; i < 5; ++i) {
    SqliteStorage storage(db);
    const auto server = make_interpreter_server(engine, storage.interpreters(), clock, options);
    const auto t = Clock::now();
    exec(*server, c.probe);
    restores.push_back(ms_since(t));
  }
  std::printf("| %-5s | %-6s | %9.1f KiB | %9.1f KiB | %7.2f ms | %7.2f ms |\n", c.language,
              delta ? "delta" : "whole", first_bytes / 1024.0, per_step / 1024.0, p50(steps),
              p50(restores));
}

}  // namespace

int main() {
  const auto dir =
      std::filesystem::temp_directory_path() / ("delta-bench-" + std::to_string(::getpid()));
  std::vector<Case> cases;
  cases.push_back({"kv", engines::make_kv_engine(), "set x 1", "incr x", "get x"});
#ifdef DELTA_BENCH_LUA
  cases.push_back({"lua", engines::make_lua_engine(), "x = 1", "x = x + 1", "return x"});
#endif
#ifdef DELTA_BENCH_JAVASCRIPT
  cases.push_back({"js", engines::make_javascript_engine(), "globalThis.x = 1", "x = x + 1", "x"});
#endif
  std::printf("| lang  | stored | new context   | per step      | step p50   | restore    |\n");
  std::printf("| ---   | ---    | ---           | ---           | ---        | ---        |\n");
  for (const Case& c : cases) {
    run(c, false, dir);
    run(c, true, dir);
  }
  std::filesystem::remove_all(dir);
  return 0;
}

// bench/contexts image-bench: the engine image mapped copy-on-write from a sealed memfd against
// the copying path (SANDBOX_IMAGE_MAPPING=copy), both in one process, per embedded engine built:
//   - session boot (image placed + the driver's after_copy), p50;
//   - stateless `1+1` run (reused instance: reset to the image + run), p50;
//   - restore of a context stored as a delta from the image (the server's 16-page chunks) and of
//     the same context stored whole, p50;
//   - memory per idle resident session: Rss and Pss growth over g_idle booted sessions that each
//     ran one small execute, divided by g_idle.
// Usage: image-bench [iterations [idle sessions]]   (default 40 50)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <sandbox/engine.h>
#include <sandbox/workspace.h>

#include "embedded/image.h"
#ifdef IMAGE_BENCH_LUA
#include "lua/lua_engine.h"
#endif
#ifdef IMAGE_BENCH_JAVASCRIPT
#include "javascript/javascript_engine.h"
#endif
#ifdef IMAGE_BENCH_PYTHON
#include "python/python_engine.h"
#endif
#ifdef IMAGE_BENCH_RUBY
#include "ruby/ruby_engine.h"
#endif
#ifdef IMAGE_BENCH_PERL
#include "perl/perl_engine.h"
#endif

namespace {

using namespace sandbox;
using Clock = std::chrono::steady_clock;

int g_idle = 50;  // idle sessions for the memory figures (second argument)
constexpr std::uint32_t kChunkPages = 16;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

double p50(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::uint64_t rollup_kib(const char* field) {
  std::ifstream in("/proc/self/smaps_rollup");
  std::string line;
  const std::string prefix = std::string(field) + ":";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) return std::stoull(line.substr(prefix.size()));
  }
  return 0;
}

struct Case {
  const char* language;
  Engine (*make)();
  std::string first;  // one small execute
};

// A session's memory, kept as the server keeps it: whole, or as a delta from the image.
struct Stored {
  std::uint64_t handle = 0;
  boost::json::object extra;
  std::uint32_t pages = 0;
  std::vector<std::uint8_t> memory;
  std::vector<std::uint32_t> delta_pages;  // whole chunks holding a page that differs
  std::string fingerprint;

  SnapshotSource source(bool delta) const {
    SnapshotSource s{
        .handle = handle,
        .extra = extra,
        .memory_pages = pages,
        .read_page = [this](std::uint32_t p) -> std::optional<std::span<const std::uint8_t>> {
          const auto page = std::span<const std::uint8_t>(memory).subspan(
              std::size_t{p} * kWasmPageBytes, kWasmPageBytes);
          if (std::all_of(page.begin(), page.end(), [](std::uint8_t b) { return b == 0; })) {
            return std::nullopt;
          }
          return page;
        }};
    if (delta) {
      s.base_delta_pages = delta_pages;
      s.base_fingerprint = fingerprint;
    }
    return s;
  }
};

Stored store(SessionInstance& session, const SnapshotBase& base) {
  const SessionSnapshot snap = session.snapshot();
  Stored s;
  s.handle = snap.handle;
  s.extra = snap.extra;
  s.pages = static_cast<std::uint32_t>(snap.memory.size() / kWasmPageBytes);
  s.memory.assign(snap.memory.begin(), snap.memory.end());
  s.fingerprint = base.fingerprint;
  static const std::vector<std::uint8_t> kZero(kWasmPageBytes, 0);
  for (std::uint32_t first = 0; first < s.pages; first += kChunkPages) {
    const std::uint32_t end = std::min(first + kChunkPages, s.pages);
    bool differs = false;
    for (std::uint32_t p = first; p < end && !differs; ++p) {
      const std::uint8_t* in_base = p < base.pages ? base.page_bytes[p] : nullptr;
      differs = std::memcmp(s.memory.data() + std::size_t{p} * kWasmPageBytes,
                            in_base ? in_base : kZero.data(), kWasmPageBytes) != 0;
    }
    for (std::uint32_t p = first; differs && p < end; ++p) s.delta_pages.push_back(p);
  }
  return s;
}

struct Figures {
  double boot = 0, stateless = 0, restore_delta = 0, restore_whole = 0;
  double rss_kib = 0, pss_kib = 0;
  std::size_t delta_pages = 0, pages = 0;
};

// An engine whose image is captured under `mapping` (the variable is read at capture).
Engine make_engine(const Case& c, embedded::ImageMapping mapping) {
  if (mapping == embedded::ImageMapping::kCopy) {
    setenv(embedded::kImageMappingEnv, "copy", 1);
  } else {
    unsetenv(embedded::kImageMappingEnv);
  }
  Engine engine = c.make();
  static_cast<void>(engine.run(ExecutionRequest{c.first, {}}));  // captures the image
  if (!engine.sessions || !engine.sessions->base || !engine.sessions->base()) {
    std::fprintf(stderr, "%s: no sessions or no reproducible image\n", c.language);
    std::exit(1);
  }
  unsetenv(embedded::kImageMappingEnv);
  return engine;
}

Figures measure(const Case& c, const Engine& engine, int iterations) {
  Figures f;
  ManualClock clock;
  Workspace ws(clock);
  const SessionOptions options{.workspace = &ws};
  const auto base = engine.sessions->base();
  std::vector<double> boots, runs, deltas, wholes;
  for (int i = 0; i < iterations; ++i) {
    const auto t = Clock::now();
    auto s = engine.sessions->boot(options);
    boots.push_back(ms_since(t));
  }
  for (int i = 0; i < iterations; ++i) {
    const auto t = Clock::now();
    static_cast<void>(engine.run(ExecutionRequest{"1+1", {}}));
    runs.push_back(ms_since(t));
  }
  auto session = engine.sessions->boot(options);
  session->execute(ExecutionRequest{c.first, {}});
  const Stored stored = store(*session, *base);
  f.delta_pages = stored.delta_pages.size();
  f.pages = stored.pages;
  for (int i = 0; i < iterations; ++i) {
    auto t = Clock::now();
    auto a = engine.sessions->restore(options, stored.source(true));
    deltas.push_back(ms_since(t));
    t = Clock::now();
    auto b = engine.sessions->restore(options, stored.source(false));
    wholes.push_back(ms_since(t));
  }
  f.boot = p50(boots);
  f.stateless = p50(runs);
  f.restore_delta = p50(deltas);
  f.restore_whole = p50(wholes);

  const std::uint64_t rss = rollup_kib("Rss");
  const std::uint64_t pss = rollup_kib("Pss");
  std::vector<std::unique_ptr<SessionInstance>> idle;
  for (int i = 0; i < g_idle; ++i) {
    idle.push_back(engine.sessions->boot(options));
    idle.back()->execute(ExecutionRequest{c.first, {}});
  }
  f.rss_kib = static_cast<double>(rollup_kib("Rss") - rss) / g_idle;
  f.pss_kib = static_cast<double>(rollup_kib("Pss") - pss) / g_idle;
  (void)c;
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::max(1, std::atoi(argv[1])) : 40;
  if (argc > 2) g_idle = std::max(1, std::atoi(argv[2]));
  std::vector<Case> cases;
#ifdef IMAGE_BENCH_LUA
  cases.push_back({"lua", &engines::make_lua_engine, "x = 41 + 1"});
#endif
#ifdef IMAGE_BENCH_JAVASCRIPT
  cases.push_back({"javascript", &engines::make_javascript_engine, "globalThis.x = 41 + 1"});
#endif
#ifdef IMAGE_BENCH_PYTHON
  cases.push_back({"python", &engines::make_python_engine, "x = 41 + 1"});
#endif
#ifdef IMAGE_BENCH_RUBY
  cases.push_back({"ruby", &engines::make_ruby_engine, "$x = 41 + 1"});
#endif
#ifdef IMAGE_BENCH_PERL
  cases.push_back({"perl", &engines::make_perl_engine, "our $x = 41 + 1"});
#endif
  std::printf("iterations %d, idle sessions %d; times are p50 in ms, memory per idle session\n",
              iterations, g_idle);
  std::printf("%-10s %-6s %8s %9s %9s %9s %9s %9s %s\n", "language", "image", "boot", "stateless",
              "rest.delta", "rest.whole", "Rss KiB", "Pss KiB", "delta/pages");
  for (const Case& c : cases) {
    const Engine copy = make_engine(c, embedded::ImageMapping::kCopy);
    const Engine cow = make_engine(c, embedded::ImageMapping::kCopyOnWrite);
    // Interleaved, so drift on the shared machine hits both alike.
    const Figures a = measure(c, copy, iterations);
    const Figures b = measure(c, cow, iterations);
    for (const auto& [name, f] : {std::pair{"copy", a}, std::pair{"cow", b}}) {
      std::printf("%-10s %-6s %8.3f %9.3f %9.3f %9.3f %9.0f %9.0f %zu/%zu\n", c.language, name,
                  f.boot, f.stateless, f.restore_delta, f.restore_whole, f.rss_kib, f.pss_kib,
                  f.delta_pages, f.pages);
    }
    const auto ratio = [](double x, double y) { return y > 0 ? x / y : 0; };
    std::printf("%-10s %-6s %7.1fx %8.1fx %8.1fx %8.1fx %8.1fx %8.1fx\n", c.language, "copy/cow",
                ratio(a.boot, b.boot), ratio(a.stateless, b.stateless),
                ratio(a.restore_delta, b.restore_delta), ratio(a.restore_whole, b.restore_whole),
                ratio(a.rss_kib, b.rss_kib), ratio(a.pss_kib, b.pss_kib));
  }
  return 0;
}

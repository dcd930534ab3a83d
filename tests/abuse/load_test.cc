// Load: many concurrent clients against one real sandboxd for a bounded time (LOAD_SECONDS,
// default 60; ctest passes 30), mixing stateless runs, context executions and file operations in
// Lua, Python and JavaScript. Every answer is checked (a counter in a context advances by exactly
// one per execution, a file reads back what was written), so the run must end with zero
// unexpected errors. p50/p99 latencies are printed per operation kind.
//
// Memory plateau criterion: VmRSS of the sandboxd process is sampled every 200 ms. The first
// third of the run is warm-up (instances booted, caches and pools filled). The median RSS of the
// last third must exceed the median of the middle third by less than 10% (kMaxPlateauGrowth).
// Medians, not maxima, so that a transient spike (a context booting while others are resident)
// does not decide; a leak grows the whole last third and moves its median.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "abuse/sandboxd_server.h"

namespace sandbox::test {
namespace {

constexpr double kMaxPlateauGrowth = 0.10;

using Clock = std::chrono::steady_clock;

struct Sample {
  double seconds;
  std::uint64_t rss;
};

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto at = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(at, v.size() - 1)];
}

std::uint64_t median_rss(const std::vector<Sample>& samples, double from, double to) {
  std::vector<std::uint64_t> v;
  for (const auto& s : samples) {
    if (s.seconds >= from && s.seconds < to) v.push_back(s.rss);
  }
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One client thread's state and results.
class LoadClient {
 public:
  LoadClient(std::string url, int index, std::uint32_t seed)
      : api_(url, std::chrono::seconds(60)),
        sandbox_("load-" + std::to_string(index)),
        rng_(seed) {}

  void run(Clock::time_point deadline) {
    while (Clock::now() < deadline) step();
  }

  const std::map<std::string, std::vector<double>>& latencies() const { return latencies_; }
  const std::vector<std::string>& errors() const { return errors_; }
  std::size_t error_count() const { return error_count_; }

 private:
  void step() {
    switch (std::uniform_int_distribution<int>(0, 8)(rng_)) {
      case 0:
        stateless("lua", "return 6 * 7", "42");
        break;
      case 1:
        stateless("python", "6 * 7", "42");
        break;
      case 2:
        stateless("javascript", "6 * 7", "42");
        break;
      case 3:
        counter("LUA", "n = (n or 0) + 1\nreturn n", lua_count_);
        break;
      case 4:
        counter("PYTHON", "n = globals().get('n', 0) + 1\nn", python_count_);
        break;
      case 5:
        counter("JAVASCRIPT", "globalThis.n = (globalThis.n || 0) + 1; n", js_count_);
        break;
      case 6:
        file_round_trip();
        break;
      case 7:
        guest_file();
        break;
      default:
        listing();
        break;
    }
  }

  void stateless(const std::string& language, const std::string& code, const std::string& want) {
    const Reply r = api_.run(language, code);
    record("run." + language, r);
    if (r.ok() && (r.has_error() || r.result_text() != want)) fail("run." + language, r);
  }

  void counter(const std::string& binding, const std::string& code, std::int64_t& count) {
    const Reply r = api_.execute(sandbox_, binding, code);
    record("context." + binding, r);
    if (!r.ok()) return;
    if (r.has_error() || r.result_text() != std::to_string(count + 1)) {
      fail("context." + binding + " expected " + std::to_string(count + 1), r);
      count = std::atoll(r.result_text().c_str());  // resynchronize, the error is counted
      return;
    }
    ++count;
  }

  void file_round_trip() {
    const std::string path = "/workspace/f" + std::to_string(seq_ % 8) + ".txt";
    const std::uint64_t n = seq_++;
    const std::string content = "content " + std::to_string(n) + std::string(n % 3000, 'z');
    const Reply w = api_.write_file(sandbox_, path, content);
    record("file.write", w);
    if (!w.ok()) return;
    const Reply r = api_.read_file(sandbox_, path);
    record("file.read", r);
    if (!r.ok()) return;
    const auto* c = r.json.if_contains("content");
    if (c == nullptr || !c->is_string() || c->as_string() != content) fail("file.read content", r);
  }

  // The guest writes a file in its Lua context; the file API reads it.
  void guest_file() {
    const std::string value = std::to_string(seq_++);
    const Reply r =
        api_.execute(sandbox_, "LUA",
                     "local f = assert(io.open('/workspace/guest.txt', 'w')) f:write('" + value +
                         "') f:close()\nn = (n or 0) + 1\nreturn n");
    record("context.LUA+file", r);
    if (!r.ok()) return;
    if (r.has_error() || r.result_text() != std::to_string(lua_count_ + 1)) {
      fail("context.LUA+file", r);
      lua_count_ = std::atoll(r.result_text().c_str());
      return;
    }
    ++lua_count_;
    const Reply read = api_.read_file(sandbox_, "/workspace/guest.txt");
    record("file.read", read);
    const auto* c = read.json.if_contains("content");
    if (read.ok() && (c == nullptr || !c->is_string() || c->as_string() != value)) {
      fail("guest file content", read);
    }
  }

  void listing() {
    const Reply r = api_.list_files(sandbox_, "/workspace", true);
    record("file.list", r);
  }

  void record(const std::string& kind, const Reply& r) {
    latencies_[kind].push_back(r.ms);
    if (!r.ok()) fail(kind, r);
  }

  void fail(const std::string& what, const Reply& r) {
    ++error_count_;
    if (errors_.size() < 10) errors_.push_back(sandbox_ + " " + what + ": " + r.describe());
  }

  SandboxdApi api_;
  std::string sandbox_;
  std::mt19937 rng_;
  std::int64_t lua_count_ = 0;
  std::int64_t python_count_ = 0;
  std::int64_t js_count_ = 0;
  std::uint64_t seq_ = 0;
  std::map<std::string, std::vector<double>> latencies_;
  std::vector<std::string> errors_;
  std::size_t error_count_ = 0;
};

TEST(Load, MixedConcurrentWorkloadHasNoErrorsAndMemoryReachesAPlateau) {
  const long seconds = env_long("LOAD_SECONDS", 60);
  const long threads = env_long("LOAD_THREADS", 16);
  const auto seed = static_cast<std::uint32_t>(env_long("LOAD_SEED", std::random_device{}()));
  std::printf("load: %ld s, %ld client threads, seed %u (LOAD_SEED)\n", seconds, threads, seed);

  ScratchDir host("sandboxd-load-");
  SandboxdServer server(ServerOptions{.engines = {"lua", "python", "javascript"},
                                      .data_dir = host.file("data"),
                                      .cwd = host.path().string(),
                                      .log_path = host.file("sandboxd.stderr.log")});
  ASSERT_TRUE(server.started()) << server.log();

  std::vector<std::unique_ptr<LoadClient>> clients;
  for (long i = 0; i < threads; ++i) {
    clients.push_back(std::make_unique<LoadClient>(server.url(), static_cast<int>(i),
                                                   seed + static_cast<std::uint32_t>(i)));
  }
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::seconds(seconds);
  std::vector<Sample> samples;
  std::atomic<bool> done{false};
  std::thread sampler([&] {
    while (!done) {
      samples.push_back(
          {std::chrono::duration<double>(Clock::now() - start).count(), server.rss_bytes()});
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  });
  std::vector<std::thread> workers;
  for (auto& c : clients) workers.emplace_back([&c, deadline] { c->run(deadline); });
  for (auto& w : workers) w.join();
  done = true;
  sampler.join();

  // Latencies per operation kind, over every client.
  std::map<std::string, std::vector<double>> all;
  std::size_t errors = 0;
  for (const auto& c : clients) {
    for (const auto& [kind, v] : c->latencies())
      all[kind].insert(all[kind].end(), v.begin(), v.end());
    errors += c->error_count();
    for (const auto& e : c->errors()) ADD_FAILURE() << e;
  }
  std::size_t total = 0;
  std::printf("%-20s %8s %10s %10s\n", "operation", "count", "p50 ms", "p99 ms");
  for (const auto& [kind, v] : all) {
    total += v.size();
    std::printf("%-20s %8zu %10.1f %10.1f\n", kind.c_str(), v.size(), percentile(v, 0.5),
                percentile(v, 0.99));
  }
  std::printf("total %zu requests (%.0f/s), %zu unexpected errors\n", total,
              static_cast<double>(total) / static_cast<double>(seconds), errors);
  EXPECT_EQ(errors, 0u) << "sandboxd's log:\n" << server.log();
  EXPECT_GT(total, static_cast<std::size_t>(seconds)) << "the workload barely ran";

  const double third = static_cast<double>(seconds) / 3;
  const std::uint64_t warmup = median_rss(samples, 0, third);
  const std::uint64_t middle = median_rss(samples, third, 2 * third);
  const std::uint64_t last = median_rss(samples, 2 * third, 3 * third + 1);
  std::uint64_t peak = 0;
  for (const auto& s : samples) peak = std::max(peak, s.rss);
  std::printf("sandboxd RSS median MiB: first third %.1f, middle %.1f, last %.1f (peak %.1f)\n",
              static_cast<double>(warmup) / 1048576, static_cast<double>(middle) / 1048576,
              static_cast<double>(last) / 1048576, static_cast<double>(peak) / 1048576);
  ASSERT_GT(middle, 0u) << "RSS was not sampled";
  EXPECT_LT(static_cast<double>(last), static_cast<double>(middle) * (1 + kMaxPlateauGrowth))
      << "sandboxd's memory keeps growing under a steady workload";

  ASSERT_TRUE(server.alive()) << server.log();
  SandboxdApi api(server.url());
  EXPECT_TRUE(api.healthy());
  EXPECT_EQ(server.stop(), 0);
}

}  // namespace
}  // namespace sandbox::test

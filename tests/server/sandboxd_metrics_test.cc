// GET /metrics on sandboxd's core over real loopback HTTP (docs/sandbox-api.md#metrics): the
// counters and histograms move by what the requests did (stateless executions, context steps, a
// restore after an eviction, snapshot and workspace bytes, lease take-overs across a restart),
// the queue gauges and refusal counters follow admission, the answer parses as the Prometheus
// text format, the route needs the API key when keys are set, and it is answered when the
// worker queue is full.
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "sandboxd_fixture.h"
#include "support/prometheus_text.h"

namespace sandbox::test {
namespace {

using std::chrono::milliseconds;

PrometheusText scrape(InProcessSandboxd& d,
                      std::vector<std::pair<std::string, std::string>> headers = {}) {
  const HttpResponse r = d.call("GET", "/metrics", {}, std::move(headers));
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type").value_or(""), "text/plain; version=0.0.4; charset=utf-8");
  return PrometheusText::parse(r.body);
}

PrometheusText::Labels exec(const std::string& language, const std::string& kind,
                            const std::string& outcome) {
  return {{"language", language}, {"kind", kind}, {"outcome", outcome}};
}

// How far each sample moved between two scrapes.
struct Delta {
  const PrometheusText& before;
  const PrometheusText& after;
  double operator()(const std::string& name, const PrometheusText::Labels& labels = {}) const {
    return after.value_or_zero(name, labels) - before.value_or_zero(name, labels);
  }
};

class SandboxdMetrics : public ::testing::Test {
 protected:
  SandboxdFixtureOptions options(std::vector<std::string> engines = {"kv", "calc"}) {
    SandboxdFixtureOptions o;
    o.engines = std::move(engines);
    o.db_path = dir_.file("sandboxd.db");
    o.metrics = &metrics_;
    return o;
  }

  TempDir dir_;
  MetricsRegistry metrics_;
};

TEST_F(SandboxdMetrics, CountersAndHistogramsMoveAsRequestsRun) {
  SandboxdFixtureOptions o = options();
  o.max_resident_instances = 1;  // a second sandbox's context evicts the first's
  InProcessSandboxd d(o);
  const PrometheusText before = scrape(d);

  // Stateless: two clean runs, a guest error and a limit (kv's `spin` runs out of fuel).
  for (const char* code : {"incr n", "print hi", "fail boom", "spin"}) {
    const HttpResponse r = d.post("/execute/kv", {{"code", code}});
    ASSERT_EQ(r.status, 200) << r.body;
  }
  ASSERT_EQ(d.post("/execute/calc", {{"code", "6 * 7"}}).status, 200);
  ASSERT_EQ(d.post("/execute/calc", {{"code", "1 / 0"}}).status, 200);

  // Context steps: three in s1 (the first boots), one in s2 (evicting s1's instance), then s1
  // again (restored from its snapshot); one of them writes a file.
  for (int i = 0; i < 3; ++i) {
    const HttpResponse r = d.post("/sandboxes/s1/execute", {{"code", "incr n"}, {"binding", "KV"}});
    ASSERT_EQ(r.status, 200) << r.body;
  }
  ASSERT_EQ(
      d.post("/sandboxes/s2/execute", {{"code", "write /workspace/a.txt hello"}, {"binding", "KV"}})
          .status,
      200);
  const HttpResponse again =
      d.post("/sandboxes/s1/execute", {{"code", "incr n"}, {"binding", "KV"}});
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(json_of(again).at("results").as_array().at(0).at("text"), "4");
  ASSERT_EQ(d.post("/sandboxes/s1/execute", {{"code", "fail again"}, {"binding", "KV"}}).status,
            200);
  // The files API writes 3 bytes.
  ASSERT_EQ(d.post("/sandboxes/s2/files", {{"op", "write"}, {"path", "b.txt"}, {"content", "hey"}})
                .status,
            200);

  const PrometheusText after = scrape(d);
  const Delta delta{before, after};
  EXPECT_EQ(delta("sandbox_executions_total", exec("kv", "stateless", "ok")), 2);
  EXPECT_EQ(delta("sandbox_executions_total", exec("kv", "stateless", "error")), 1);
  EXPECT_EQ(delta("sandbox_executions_total", exec("kv", "stateless", "limit")), 1);
  EXPECT_EQ(delta("sandbox_executions_total", exec("calc", "stateless", "ok")), 1);
  EXPECT_EQ(delta("sandbox_executions_total", exec("calc", "stateless", "error")), 1);
  EXPECT_EQ(delta("sandbox_executions_total", exec("kv", "context", "ok")), 5);
  EXPECT_EQ(delta("sandbox_executions_total", exec("kv", "context", "error")), 1);
  EXPECT_EQ(delta("sandbox_executions_total", exec("kv", "context", "failed")), 0);
  EXPECT_EQ(delta("sandbox_stateless_execution_seconds_count", {{"language", "kv"}}), 4);
  EXPECT_EQ(delta("sandbox_stateless_execution_seconds_count", {{"language", "calc"}}), 2);
  EXPECT_EQ(delta("sandbox_context_step_seconds_count", {{"language", "kv"}}), 6);
  EXPECT_GT(delta("sandbox_context_step_seconds_sum", {{"language", "kv"}}), 0);
  EXPECT_EQ(delta("sandbox_context_restore_seconds_count", {{"language", "kv"}}), 1);
  EXPECT_GT(delta("sandbox_snapshot_bytes_written_total", {{"language", "kv"}}), 0);
  EXPECT_EQ(delta("sandbox_workspace_bytes_written_total"), 5 + 3);
  EXPECT_EQ(after.value("sandbox_resident_contexts", {{"language", "kv"}}), 1);
  // calc has no contexts: no context series.
  EXPECT_FALSE(after.has("sandbox_resident_contexts", {{"language", "calc"}}));
  EXPECT_FALSE(after.has("sandbox_context_restore_seconds_count", {{"language", "calc"}}));
  EXPECT_EQ(delta("sandbox_lease_takeovers_total", {{"scope", "sandbox"}}), 0);
  EXPECT_EQ(after.value("sandbox_http_queued_requests"), 0);
  EXPECT_EQ(after.value("sandbox_http_parked_requests"), 0);
  EXPECT_GE(after.value("sandbox_http_open_connections"), 1);

  // Nothing a request carried became a label: no sandbox id in the text.
  const std::string text = d.call("GET", "/metrics").body;
  EXPECT_EQ(text.find("s1"), std::string::npos) << text;
  EXPECT_EQ(text.find("s2"), std::string::npos) << text;
}

TEST_F(SandboxdMetrics, LeasesTakenBackAfterARestartAreTakeOvers) {
  {
    InProcessSandboxd d(options());
    ASSERT_EQ(d.post("/sandboxes/s/execute", {{"code", "incr n"}, {"binding", "KV"}}).status, 200);
  }
  // The same database, a new process (the registry is the test's, so counts carry over).
  InProcessSandboxd d(options());
  const PrometheusText before = scrape(d);
  const HttpResponse r = d.post("/sandboxes/s/execute", {{"code", "incr n"}, {"binding", "KV"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json_of(r).at("results").as_array().at(0).at("text"), "2");
  ASSERT_EQ(d.post("/sandboxes/s/execute", {{"code", "incr n"}, {"binding", "KV"}}).status, 200);
  const PrometheusText after = scrape(d);
  const Delta delta{before, after};
  // The sandbox id and its interpreter key were each taken over once, by the first request.
  EXPECT_EQ(delta("sandbox_lease_takeovers_total", {{"scope", "sandbox"}}), 1);
  EXPECT_EQ(delta("sandbox_lease_takeovers_total", {{"scope", "interpreter"}}), 1);
  EXPECT_EQ(delta("sandbox_context_restore_seconds_count", {{"language", "kv"}}), 1);
  // A sandbox this node never had is no take-over.
  ASSERT_EQ(d.post("/sandboxes/fresh/execute", {{"code", "incr n"}, {"binding", "KV"}}).status,
            200);
  const PrometheusText last = scrape(d);
  EXPECT_EQ(Delta(after, last)("sandbox_lease_takeovers_total", {{"scope", "sandbox"}}), 0);
  EXPECT_EQ(Delta(after, last)("sandbox_lease_takeovers_total", {{"scope", "interpreter"}}), 0);
}

TEST_F(SandboxdMetrics, TheAnswerIsTheTextFormatWithEveryFamily) {
  InProcessSandboxd d(options({"kv", "calc", "lua"}));
  ASSERT_EQ(d.post("/execute/lua", {{"code", "return 1"}}).status, 200);
  const HttpResponse r = d.call("GET", "/metrics");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.header("cache-control").value_or(""), "no-store");
  const PrometheusText p = PrometheusText::parse(r.body);
  for (const char* family :
       {"sandbox_executions_total", "sandbox_stateless_execution_seconds",
        "sandbox_context_step_seconds", "sandbox_context_restore_seconds",
        "sandbox_snapshot_bytes_written_total", "sandbox_resident_contexts",
        "sandbox_workspace_bytes_written_total", "sandbox_lease_takeovers_total",
        "sandbox_http_refusals_total", "sandbox_http_queued_requests",
        "sandbox_http_parked_requests", "sandbox_http_open_connections"}) {
    EXPECT_TRUE(p.families().contains(family)) << family << " in\n" << r.body;
  }
  // One series per language, kind and outcome, registered before any execution ran; calc has
  // no contexts, so no context series.
  for (const char* language : {"kv", "calc", "lua"}) {
    for (const char* kind : {"stateless", "context"}) {
      const bool expected = std::string(kind) == "stateless" || std::string(language) != "calc";
      for (const char* outcome : {"ok", "error", "limit", "failed"}) {
        EXPECT_EQ(p.has("sandbox_executions_total", exec(language, kind, outcome)), expected)
            << language << " " << kind << " " << outcome;
      }
    }
  }
  EXPECT_TRUE(p.has("sandbox_stateless_execution_seconds_count", {{"language", "calc"}}));
  EXPECT_FALSE(p.has("sandbox_context_step_seconds_count", {{"language", "calc"}}));
  EXPECT_FALSE(p.has("sandbox_snapshot_bytes_written_total", {{"language", "calc"}}));
  EXPECT_EQ(p.value("sandbox_executions_total", exec("lua", "stateless", "ok")), 1);
  EXPECT_EQ(
      p.value("sandbox_stateless_execution_seconds_bucket", {{"language", "lua"}, {"le", "+Inf"}}),
      1);
  // Only GET.
  const HttpResponse post = d.call("POST", "/metrics", "{}");
  EXPECT_EQ(post.status, 405) << post.body;
  EXPECT_EQ(post.header("allow").value_or(""), "GET");
}

TEST_F(SandboxdMetrics, WithApiKeysTheRouteNeedsAKey) {
  SandboxdFixtureOptions o = options();
  o.api_keys = {"k1"};
  InProcessSandboxd d(o);
  const HttpResponse none = d.call("GET", "/metrics");
  EXPECT_EQ(none.status, 401) << none.body;
  EXPECT_EQ(none.body.find("sandbox_"), std::string::npos);
  EXPECT_EQ(d.call("GET", "/metrics", {}, {{"authorization", "Bearer wrong"}}).status, 401);
  const PrometheusText p = scrape(d, {{"authorization", "Bearer k1"}});
  EXPECT_TRUE(p.families().contains("sandbox_executions_total"));
  // /healthz still needs none.
  EXPECT_EQ(d.call("GET", "/healthz").status, 200);
}

TEST_F(SandboxdMetrics, WithoutARegistryThereIsNoRoute) {
  SandboxdFixtureOptions o = options();
  o.metrics = nullptr;
  InProcessSandboxd d(o);
  EXPECT_EQ(d.call("GET", "/metrics").status, 404);
}

// Holds every calc execution whose code is "block" until released.
class Gate {
 public:
  Engine wrap(Engine engine) {
    if (engine.language != "calc") return engine;
    auto run = engine.run;
    engine.run = [this, run](const ExecutionRequest& request) {
      if (request.code == "block") {
        std::unique_lock lock(mu_);
        ++entered_;
        cv_.notify_all();
        cv_.wait(lock, [&] { return open_; });
        return run(ExecutionRequest{"1", {}, {}});
      }
      return run(request);
    };
    return engine;
  }
  void wait_entered(int n) {
    std::unique_lock lock(mu_);
    ASSERT_TRUE(cv_.wait_for(lock, std::chrono::seconds(30), [&] { return entered_ >= n; }));
  }
  void open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int entered_ = 0;
  bool open_ = false;
};

TEST_F(SandboxdMetrics, AdmissionIsCountedAndTheRouteIsAnsweredWhenTheQueueIsFull) {
  Gate gate;
  SandboxdFixtureOptions o = options({"calc"});
  o.decorate_engine = [&](Engine e) { return gate.wrap(std::move(e)); };
  // One worker thread, one queue place, one request waiting per sandbox.
  o.serve = ServeOptions{.io_threads = 1,
                         .worker_threads = 1,
                         .max_queued_requests = 1,
                         .max_waiting_per_key = 1,
                         .reserved_workers = 0};
  InProcessSandboxd d(o);
  const PrometheusText before = scrape(d);
  const std::string block = R"({"code":"block","binding":"CALC"})";
  const auto send = [&](const std::string& method, const std::string& path,
                        const std::string& body) {
    return std::async(std::launch::async,
                      [&d, method, path, body] { return d.call(method, path, body); });
  };
  const auto wait_for_gauge = [&](const std::string& name, double want) {
    for (int i = 0; i < 3000; ++i) {
      if (scrape(d).value(name) == want) return;
      std::this_thread::sleep_for(milliseconds(10));
    }
    FAIL() << name << " never reached " << want;
  };
  // A runs on the only worker and blocks; B waits behind A for sandbox s, without a worker.
  auto a = send("POST", "/sandboxes/s/execute", block);
  gate.wait_entered(1);
  auto b = send("POST", "/sandboxes/s/execute", block);
  wait_for_gauge("sandbox_http_parked_requests", 1);
  // C finds sandbox s's waiting place taken: 429.
  const HttpResponse c = d.call("POST", "/sandboxes/s/execute", block);
  EXPECT_EQ(c.status, 429) << c.body;
  // D waits for the worker; E finds the queue full: 503.
  auto d_run = send("POST", "/execute/calc", R"({"code":"2 + 2"})");
  wait_for_gauge("sandbox_http_queued_requests", 1);
  const HttpResponse e = d.call("GET", "/sandboxes/t");
  EXPECT_EQ(e.status, 503) << e.body;

  // The scrape itself needs no worker.
  const PrometheusText full = scrape(d);
  const Delta delta{before, full};
  EXPECT_EQ(delta("sandbox_http_refusals_total", {{"limit", "max_waiting_per_key"}}), 1);
  EXPECT_EQ(delta("sandbox_http_refusals_total", {{"limit", "max_queued_requests"}}), 1);
  EXPECT_EQ(delta("sandbox_http_refusals_total", {{"limit", "max_connections"}}), 0);
  EXPECT_EQ(full.value("sandbox_http_queued_requests"), 1);
  EXPECT_EQ(full.value("sandbox_http_parked_requests"), 1);
  EXPECT_GE(full.value("sandbox_http_open_connections"), 3);  // A, B, D (and this scrape)

  gate.open();
  EXPECT_EQ(a.get().status, 200);
  EXPECT_EQ(b.get().status, 200);
  EXPECT_EQ(d_run.get().status, 200);
  const PrometheusText after = scrape(d);
  EXPECT_EQ(after.value("sandbox_http_queued_requests"), 0);
  EXPECT_EQ(after.value("sandbox_http_parked_requests"), 0);
  EXPECT_EQ(Delta(before, after)("sandbox_executions_total", exec("calc", "stateless", "ok")), 3);
}

TEST_F(SandboxdMetrics, ExecutionsRefusedForAnApiKeyAreCounted) {
  Gate gate;
  SandboxdFixtureOptions o = options({"calc"});
  o.decorate_engine = [&](Engine e) { return gate.wrap(std::move(e)); };
  o.api_keys = {"k1"};
  // Workers enough for every held execution to run (and block) at once.
  o.serve.worker_threads = static_cast<int>(kDefaultMaxExecutionsPerKey) + 4;
  InProcessSandboxd d(o);
  // The fixture's handler has the default bound (kDefaultMaxExecutionsPerKey in flight).
  const std::vector<std::pair<std::string, std::string>> key{{"authorization", "Bearer k1"}};
  const PrometheusText before = scrape(d, key);
  std::vector<std::future<HttpResponse>> held;
  for (std::size_t i = 0; i < kDefaultMaxExecutionsPerKey; ++i) {
    held.push_back(std::async(std::launch::async, [&d, &key, i] {
      return d.call("POST", "/sandboxes/s" + std::to_string(i) + "/execute",
                    R"({"code":"block","binding":"CALC"})", key);
    }));
  }
  gate.wait_entered(static_cast<int>(kDefaultMaxExecutionsPerKey));
  EXPECT_EQ(d.call("POST", "/execute/calc", R"({"code":"1"})", key).status, 429);
  EXPECT_EQ(d.call("POST", "/execute/calc", R"({"code":"1"})", key).status, 429);
  const PrometheusText during = scrape(d, key);
  EXPECT_EQ(
      Delta(before, during)("sandbox_http_refusals_total", {{"limit", "max_executions_per_key"}}),
      2);
  gate.open();
  for (auto& f : held) EXPECT_EQ(f.get().status, 200);
}

}  // namespace
}  // namespace sandbox::test

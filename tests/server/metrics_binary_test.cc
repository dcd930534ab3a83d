// GET /metrics of the real executables (docs/sandbox-api.md#metrics, docs/protocol.md#metrics):
// sandboxd with --api-key and --metrics-listen (the key guards the main listener's route, the
// metrics listener needs none and serves nothing else), its worker-process series as a worker is
// killed and replaced; sandbox-runtime's counters on both its listeners.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <signal.h>

#include "server/sandboxd_fixture.h"
#include "server/sandboxd_process.h"
#include "support/prometheus_text.h"

namespace sandbox::test {
namespace {

using std::chrono::milliseconds;
using Headers = std::vector<std::pair<std::string, std::string>>;

PrometheusText scrape(const std::string& url, const Headers& headers = {}) {
  const HttpResponse r = HttpClient(url).request("GET", "/metrics", {}, headers);
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type").value_or(""), "text/plain; version=0.0.4; charset=utf-8");
  return PrometheusText::parse(r.body);
}

// Polls `url`'s /metrics until `name` equals `want` (10 s at most).
bool wait_for(const std::string& url, const std::string& name, double want) {
  for (int i = 0; i < 1000; ++i) {
    if (scrape(url).value_or_zero(name) == want) return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return false;
}

// The pids whose parent is `parent` (from /proc/*/stat).
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    // Any process may exit between the listing and the read, which then fails with ESRCH
    // (libstdc++ throws it from the stream): such a process is no child of a live server.
    std::string stat;
    try {
      std::ifstream in(entry.path() / "stat");
      stat.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } catch (const std::exception&) {
      continue;
    }
    // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && state != "Z") out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

TEST(MetricsBinary, SandboxdKeyMetricsListenerAndWorkerRestarts) {
  TempDir dir;
  SandboxdProcess d(dir.file("data"), {"--engines", "kv", "--isolation", "process", "--workers",
                                       "2", "--api-key", "k1", "--metrics-listen", "127.0.0.1:0"});
  ASSERT_TRUE(d.started()) << d.process().stderr_text();
  const std::string metrics_port =
      d.process().wait_for_line(std::regex(R"(Metrics: http://127\.0\.0\.1:(\d+)/metrics)"));
  ASSERT_FALSE(metrics_port.empty()) << d.process().stdout_text();
  const std::string metrics_url = "http://127.0.0.1:" + metrics_port;
  const Headers key{{"authorization", "Bearer k1"}};

  // The main listener's route needs the key; the metrics listener's needs none and serves
  // nothing else.
  EXPECT_EQ(HttpClient(d.url()).request("GET", "/metrics").status, 401);
  const PrometheusText main = scrape(d.url(), key);
  const PrometheusText own = scrape(metrics_url);
  EXPECT_EQ(main.families().size(), own.families().size());
  EXPECT_EQ(HttpClient(metrics_url).request("GET", "/healthz").status, 404);
  EXPECT_EQ(HttpClient(metrics_url).request("GET", "/languages").status, 404);

  // Two workers, none lost yet.
  EXPECT_EQ(own.value("sandbox_worker_processes"), 2);
  EXPECT_EQ(own.value("sandbox_worker_processes_lost_total"), 0);
  EXPECT_EQ(own.value("sandbox_worker_restarts_total"), 0);

  // A stateless run, counted in the server (the engine runs in a worker).
  HttpResponse r = HttpClient(d.url()).post_json("/execute/kv", R"({"code":"incr n"})", key);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(scrape(metrics_url)
                .value("sandbox_executions_total",
                       {{"language", "kv"}, {"kind", "stateless"}, {"outcome", "ok"}}),
            1);

  // Kill one worker: the zygote is sandboxd's child, the workers are the zygote's.
  const std::vector<pid_t> zygote = children_of(d.process().pid());
  ASSERT_EQ(zygote.size(), 1u);
  const std::vector<pid_t> workers = children_of(zygote[0]);
  ASSERT_EQ(workers.size(), 2u);
  ASSERT_EQ(kill(workers[0], SIGKILL), 0);
  EXPECT_TRUE(wait_for(metrics_url, "sandbox_worker_processes_lost_total", 1));
  EXPECT_EQ(scrape(metrics_url).value("sandbox_worker_processes"), 1);
  // The next calls replace it.
  for (int i = 0; i < 4; ++i) {
    r = HttpClient(d.url()).post_json("/execute/kv", R"({"code":"incr n"})", key);
    EXPECT_TRUE(r.status == 200 || r.status == 503) << r.body;
  }
  const PrometheusText after = scrape(metrics_url);
  EXPECT_EQ(after.value("sandbox_worker_restarts_total"), 1);
  EXPECT_EQ(after.value("sandbox_worker_processes"), 2);
  EXPECT_EQ(d.stop(), 0);
}

TEST(MetricsBinary, SandboxRuntimeCountsOnBothListeners) {
  TempDir dir;
  ChildProcess runtime(
      {SANDBOX_RUNTIME_PATH, "--engine", "kv", "--listen", "127.0.0.1:0", "--metrics-listen",
       "127.0.0.1:0", "--isolation", "thread", "--data", dir.file("data")},
      {}, {}, dir.file("runtime.stderr.log"));
  const std::string port = runtime.wait_for_line(std::regex(R"(listening on port (\d+))"));
  ASSERT_FALSE(port.empty()) << runtime.stderr_text();
  const std::string metrics_port = runtime.wait_for_line(std::regex(R"(metrics on port (\d+))"));
  ASSERT_FALSE(metrics_port.empty()) << runtime.stdout_text();
  const std::string url = "http://127.0.0.1:" + port;
  const std::string metrics_url = "http://127.0.0.1:" + metrics_port;
  HttpClient client(url);

  ASSERT_EQ(client.post_json("/execute", R"({"code":"incr n"})").status, 200);
  ASSERT_EQ(client.post_json("/execute", R"({"code":"fail no"})").status, 200);
  ASSERT_EQ(client.post_json("/interpreters/key-1/contexts", R"({"id":"ctx-1"})").status, 201);
  for (int i = 0; i < 3; ++i) {
    const HttpResponse r = client.post_json("/interpreters/key-1/execute",
                                            R"({"contextId":"ctx-1","code":"incr n","envVars":{},)"
                                            R"("workspace":{"dirs":[],"manifest":{},"files":[]}})");
    ASSERT_EQ(r.status, 200) << r.body;
  }
  const PrometheusText main = scrape(url);
  const PrometheusText own = scrape(metrics_url);
  for (const PrometheusText* p : {&main, &own}) {
    EXPECT_EQ(p->value("sandbox_executions_total",
                       {{"language", "kv"}, {"kind", "stateless"}, {"outcome", "ok"}}),
              1);
    EXPECT_EQ(p->value("sandbox_executions_total",
                       {{"language", "kv"}, {"kind", "stateless"}, {"outcome", "error"}}),
              1);
    EXPECT_EQ(p->value("sandbox_executions_total",
                       {{"language", "kv"}, {"kind", "context"}, {"outcome", "ok"}}),
              3);
    EXPECT_EQ(p->value("sandbox_context_step_seconds_count", {{"language", "kv"}}), 3);
    EXPECT_GT(p->value("sandbox_snapshot_bytes_written_total", {{"language", "kv"}}), 0);
    EXPECT_EQ(p->value("sandbox_resident_contexts", {{"language", "kv"}}), 1);
    // The sandbox-side families are sandboxd's alone; thread isolation has no workers.
    EXPECT_FALSE(p->families().contains("sandbox_workspace_bytes_written_total"));
    EXPECT_FALSE(p->families().contains("sandbox_worker_processes"));
    EXPECT_TRUE(p->has("sandbox_http_refusals_total", {{"limit", "max_queued_requests"}}));
  }
  // The runtime's own routes are unchanged beside it.
  EXPECT_EQ(client.request("GET", "/nope").status, 404);
  EXPECT_EQ(HttpClient(metrics_url).request("GET", "/interpreter").status, 404);
  EXPECT_EQ(runtime.stop(), 0);
}

}  // namespace
}  // namespace sandbox::test

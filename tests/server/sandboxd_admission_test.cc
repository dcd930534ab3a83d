// sandboxd under load, over real loopback HTTP (include/sandbox/http.h "Admission",
// src/server/sandboxd_handler.h): health checks and idle sandboxes stay fast while every
// execution worker runs a Lua infinite loop, requests waiting for a busy sandbox hold no worker,
// and each API key has a bound on its executions in flight.
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "interpreter/over_store.h"
#include "sandboxd_fixture.h"

namespace sandbox::test {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr char kLoop[] = R"({"code":"while true do end","binding":"LUA"})";

// sandboxd's core with the Lua engine and chosen admission limits.
class LoadedSandboxd {
 public:
  LoadedSandboxd(ServeOptions serve, SandboxdOptions handler_options)
      : storage_(std::make_unique<SqliteStorage>(dir_.file("sandboxd.db"))) {
    bindings_.add(make_local_binding(
        "LUA",
        define_interpreter_runtime(
            engines::make_lua_engine(), storage_->interpreters(),
            RuntimeOptions{.clock = &clock_, .idle_ttl_ms = 0, .background_expiry = false})));
    service_ = std::make_unique<SandboxService>(
        storage_->sandboxes(), clock_, bindings_,
        SandboxServiceOptions{.sandbox = {.idle_ttl_ms = 86'400'000, .file_api = true},
                              .background_expiry = false});
    handler_ = std::make_unique<SandboxdHandler>(*service_, clock_, std::move(handler_options));
    serve.listen = "127.0.0.1:0";
    server_ = std::make_unique<HttpServer>(*handler_, serve);
    server_->start();
  }
  ~LoadedSandboxd() { server_->stop(); }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(server_->port()); }

  HttpResponse call(const std::string& method, const std::string& path,
                    const std::string& body = {},
                    const std::vector<std::pair<std::string, std::string>>& headers = {},
                    milliseconds timeout = milliseconds(60'000)) const {
    HttpClient client(url(), timeout);
    if (method == "POST") return client.post_json(path, body, headers);
    return client.request(method, path, body, headers);
  }

  // Sends `method path` on its own connection in the background.
  std::future<HttpResponse> send(const std::string& method, const std::string& path,
                                 const std::string& body = {},
                                 std::vector<std::pair<std::string, std::string>> headers = {}) {
    return std::async(std::launch::async, [this, method, path, body, headers] {
      return call(method, path, body, headers);
    });
  }

 private:
  TempDir dir_;
  SystemClock clock_;
  std::unique_ptr<SqliteStorage> storage_;
  BindingSet bindings_;
  std::unique_ptr<SandboxService> service_;
  std::unique_ptr<SandboxdHandler> handler_;
  std::unique_ptr<HttpServer> server_;
};

template <typename F>
milliseconds timed(F&& f) {
  const auto start = steady_clock::now();
  f();
  return std::chrono::duration_cast<milliseconds>(steady_clock::now() - start);
}

TEST(SandboxdAdmission, HealthAndIdleSandboxesStayFastWhileEveryWorkerLoops) {
  constexpr int kWorkers = 4;
  constexpr int kBusySandboxes = 6;
  constexpr int kLoopsPerSandbox = 3;
  LoadedSandboxd d({.worker_threads = kWorkers, .reserved_workers = 1}, {});
  // The idle sandbox exists before the load starts.
  ASSERT_EQ(
      d.call("POST", "/sandboxes/idle/files", R"({"op":"write","path":"a.txt","content":"hi"})")
          .status,
      200);
  std::vector<std::future<HttpResponse>> loops;
  for (int s = 0; s < kBusySandboxes; ++s) {
    for (int i = 0; i < kLoopsPerSandbox; ++i) {
      loops.push_back(d.send("POST", "/sandboxes/busy-" + std::to_string(s) + "/execute", kLoop));
    }
  }
  std::this_thread::sleep_for(milliseconds(300));  // every execution worker is in a loop now
  for (int round = 0; round < 3; ++round) {
    HttpResponse health;
    EXPECT_LT(timed([&] { health = d.call("GET", "/healthz"); }), milliseconds(1000));
    EXPECT_EQ(health.status, 200);
    HttpResponse info;
    EXPECT_LT(timed([&] { info = d.call("GET", "/sandboxes/idle"); }), milliseconds(1000));
    EXPECT_EQ(info.status, 200) << info.body;
    HttpResponse read;
    EXPECT_LT(timed([&] {
                read = d.call("POST", "/sandboxes/idle/files", R"({"op":"read","path":"a.txt"})");
              }),
              milliseconds(1000));
    EXPECT_EQ(json_of(read)["content"], "hi") << read.body;
  }
  // An execution in the idle sandbox waits for an execution worker, and then succeeds.
  const HttpResponse run =
      d.call("POST", "/sandboxes/idle/execute", R"({"code":"return 6 * 7","binding":"LUA"})");
  ASSERT_EQ(run.status, 200) << run.body;
  EXPECT_EQ(json_of(run)["results"].as_array().at(0).at("text"), "42");
  for (auto& f : loops) {
    const HttpResponse r = f.get();
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_TRUE(json_of(r).contains("error")) << r.body;  // the loop ran out of fuel
  }
}

TEST(SandboxdAdmission, RequestsForABusySandboxAreBoundedAndHoldNoWorker) {
  // Two workers: were the waiting requests holding workers, the other sandbox's execution
  // would wait behind the busy sandbox's whole queue.
  LoadedSandboxd d({.worker_threads = 2, .max_waiting_per_key = 2, .reserved_workers = 0}, {});
  constexpr int kSent = 6;  // together, in far less time than one loop runs
  std::vector<std::future<HttpResponse>> busy;
  for (int i = 0; i < kSent; ++i) busy.push_back(d.send("POST", "/sandboxes/busy/execute", kLoop));
  std::this_thread::sleep_for(milliseconds(100));
  const HttpResponse other =
      d.call("POST", "/sandboxes/other/execute", R"({"code":"return 1","binding":"LUA"})");
  EXPECT_EQ(other.status, 200) << other.body;
  int ran = 0, refused = 0;
  for (auto& f : busy) {
    const HttpResponse r = f.get();
    if (r.status == 200) {
      ++ran;
    } else {
      ++refused;
      EXPECT_EQ(r.status, 429) << r.body;
      EXPECT_EQ(r.header("retry-after").value_or(""), "1");
      EXPECT_EQ(json_of(r)["context"].at("limit"), "max_waiting_per_key");
    }
  }
  EXPECT_GE(refused, 1);
  EXPECT_GE(ran, 3);  // the running one and the two waiting behind it
}

TEST(SandboxdAdmission, EachApiKeyHasABoundOnExecutionsInFlight) {
  LoadedSandboxd d({.worker_threads = 4, .reserved_workers = 0},
                   {.api_keys = {"k1", "k2", "k3"}, .max_executions_per_key = 2});
  const auto key = [](const std::string& k) {
    return std::vector<std::pair<std::string, std::string>>{{"authorization", "Bearer " + k}};
  };
  // k2's two loops keep sandbox a busy; k1's two executions wait behind them, and count.
  std::vector<std::future<HttpResponse>> in_flight;
  for (const char* k : {"k2", "k2", "k1", "k1"}) {
    in_flight.push_back(d.send("POST", "/sandboxes/a/execute", kLoop, key(k)));
    std::this_thread::sleep_for(milliseconds(20));
  }
  std::this_thread::sleep_for(milliseconds(300));
  const HttpResponse third = d.call("POST", "/sandboxes/c/execute", kLoop, key("k1"));
  EXPECT_EQ(third.status, 429) << third.body;
  EXPECT_EQ(third.header("retry-after").value_or(""), "1");
  // Requests that are not executions, and another key, are not counted.
  EXPECT_EQ(d.call("GET", "/sandboxes/b", {}, key("k1")).status, 200);
  EXPECT_EQ(
      d.call("POST", "/sandboxes/d/execute", R"({"code":"return 1","binding":"LUA"})", key("k3"))
          .status,
      200);
  for (auto& f : in_flight) EXPECT_EQ(f.get().status, 200);
  // The slots are given back once the answers are written.
  EXPECT_EQ(
      d.call("POST", "/sandboxes/c/execute", R"({"code":"return 1","binding":"LUA"})", key("k1"))
          .status,
      200);
}

// The per-API-key refusal used VALIDATION_FAILED with an empty context while every other busy
// refusal is INTERNAL_ERROR with {limit, retryAfterSeconds}: one kind, one envelope now
// (docs/errors.md kTooManyRequests).
TEST(SandboxdAdmission, APerKeyRefusalIsTheBusyEnvelopeOfEveryOtherRefusal) {
  LoadedSandboxd d({.worker_threads = 4, .reserved_workers = 0},
                   {.api_keys = {"k1"}, .max_executions_per_key = 1});
  const std::vector<std::pair<std::string, std::string>> key{{"authorization", "Bearer k1"}};
  // A loop holds k1's one slot until its fuel runs out; a quick execution sent meanwhile is
  // refused. Polled rather than timed: the loop's length depends on the machine.
  HttpResponse r;
  for (int attempt = 0; attempt < 5 && r.status != 429; ++attempt) {
    auto running = d.send("POST", "/sandboxes/a/execute", kLoop, key);
    while (running.wait_for(milliseconds(10)) != std::future_status::ready) {
      r = d.call("POST", "/sandboxes/b/execute", R"({"code":"return 1","binding":"LUA"})", key);
      if (r.status == 429) break;
    }
    // The quick one may have come first: then the loop is the one refused.
    if (HttpResponse first = running.get(); first.status == 429) r = std::move(first);
  }
  ASSERT_EQ(r.status, 429) << r.body;
  EXPECT_EQ(r.header("retry-after").value_or(""), "1");
  boost::json::object body = json_of(r);
  EXPECT_EQ(body["code"], "INTERNAL_ERROR") << r.body;
  EXPECT_EQ(body["httpStatus"], 429) << r.body;
  EXPECT_EQ(body["context"].at("limit"), "max_executions_per_key") << r.body;
  EXPECT_EQ(body["context"].at("retryAfterSeconds"), 1) << r.body;
}

}  // namespace
}  // namespace sandbox::test

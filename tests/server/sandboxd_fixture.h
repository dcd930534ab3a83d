// Test helper: sandboxd's core (SandboxService + SandboxdHandler) served in process on
// 127.0.0.1 port 0, over a temporary SQLite file, with a chosen set of built-in engines
// (kv, calc, lua; any other through SandboxdFixtureOptions::make_engine) and remote bindings.
// Recreating it on the same database is a restart.
#pragma once

#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <sandbox/clock.h>
#include <sandbox/metrics.h>
#include <sandbox/runtime.h>

#include "calc_engine.h"
#include "client/http_client.h"
#include "interpreter/over_store.h"
#include "kv_engine.h"
#include "lua_engine.h"
#include "sandbox/local_binding.h"
#include "sandbox/remote_binding.h"
#include "sandbox/sandbox_service.h"
#include "server/sandboxd_handler.h"
#include "storage/sqlite/sqlite_stores.h"
#include "support/isolation_under_test.h"

namespace sandbox::test {

// A fresh directory under the system temp dir, removed with the object.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("sandboxd-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline Engine make_test_engine(const std::string& name) {
  if (name == "kv") return engines::make_kv_engine();
  if (name == "calc") return engines::make_calc_engine();
  if (name == "lua") return engines::make_lua_engine();
  throw std::invalid_argument("no test engine " + name);
}

inline std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

struct SandboxdFixtureOptions {
  std::vector<std::string> engines = {"kv", "calc"};
  // Remote bindings: name -> URL.
  std::vector<std::pair<std::string, std::string>> remote;
  SandboxOptions sandbox{.idle_ttl_ms = 86'400'000, .file_api = true};
  std::vector<std::string> api_keys;
  const Clock* clock = nullptr;  // nullptr: the system clock
  std::string db_path;           // required
  std::size_t max_resident_instances = 16;
  std::int64_t interpreter_idle_ttl_ms = 0;
  // HOST:PORT to listen on; a restart on the same port keeps clients' URLs valid.
  std::string listen = "127.0.0.1:0";
  // Files served without a key (SandboxdOptions::static_files); null: none.
  std::shared_ptr<const StaticFiles> static_files;
  // Host names accepted besides the loopback ones when no API keys are set (--allowed-host).
  std::vector<std::string> allowed_hosts;
  // Optional: makes the engine of each name in `engines` (null: make_test_engine, which knows
  // kv, calc and lua); a test links and names any other engine it serves.
  std::function<Engine(const std::string& name)> make_engine;
  // Optional: replaces each engine before it is served (a test wraps the real engine).
  std::function<Engine(Engine)> decorate_engine;
  // Optional: where the runtimes, the service, the handler and the server report, served at
  // GET /metrics (docs/sandbox-api.md#metrics). Must outlive the fixture.
  MetricsRegistry* metrics = nullptr;
  // The HTTP server's options but `listen` and `metrics` (set from the fields above).
  ServeOptions serve{.io_threads = 2, .worker_threads = 8};
};

class InProcessSandboxd {
 public:
  explicit InProcessSandboxd(SandboxdFixtureOptions options)
      : clock_(options.clock ? options.clock : &system_clock_),
        storage_(std::make_unique<SqliteStorage>(options.db_path)) {
    for (const auto& name : options.engines) {
      // In worker processes when the suite runs in that mode (support/isolation_under_test.h);
      // a decorator wraps the engine as the server sees it.
      Engine engine =
          under_test(options.make_engine ? options.make_engine(name) : make_test_engine(name));
      if (options.decorate_engine) engine = options.decorate_engine(std::move(engine));
      auto runtime = define_interpreter_runtime(
          std::move(engine), storage_->interpreters(),
          RuntimeOptions{.clock = clock_,
                         .idle_ttl_ms = options.interpreter_idle_ttl_ms,
                         .max_resident_instances = options.max_resident_instances,
                         .background_expiry = false,
                         .metrics = options.metrics});
      bindings_.add(make_local_binding(upper(name), std::move(runtime)));
    }
    for (const auto& [name, url] : options.remote) {
      bindings_.add(make_remote_binding(name, RemoteBindingOptions{.url = url}));
    }
    service_ = std::make_unique<SandboxService>(
        storage_->sandboxes(), *clock_, bindings_,
        SandboxServiceOptions{
            .sandbox = options.sandbox, .background_expiry = false, .metrics = options.metrics});
    handler_ = std::make_unique<SandboxdHandler>(
        *service_, *clock_,
        SandboxdOptions{.api_keys = options.api_keys,
                        .log =
                            [this](const RequestLogEntry& e) {
                              std::lock_guard lock(log_mu_);
                              log_.push_back(format_request_log(e, clock_->now_ms()));
                            },
                        .static_files = options.static_files,
                        .allowed_hosts = options.allowed_hosts,
                        .metrics = options.metrics});
    ServeOptions serve = options.serve;
    serve.listen = options.listen;
    serve.metrics = options.metrics;
    server_ = std::make_unique<HttpServer>(*handler_, serve);
    server_->start();
  }

  ~InProcessSandboxd() {
    server_->stop();
    server_.reset();
  }

  std::uint16_t port() const { return server_->port(); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port()); }
  SandboxService& service() { return *service_; }
  const BindingSet& bindings() const { return bindings_; }
  SqliteStorage& storage() { return *storage_; }

  std::vector<std::string> log_lines() {
    std::lock_guard lock(log_mu_);
    return log_;
  }

  // One request over HTTP (a POST is sent as JSON).
  HttpResponse call(const std::string& method, const std::string& path,
                    const std::string& body = {},
                    std::vector<std::pair<std::string, std::string>> headers = {}) {
    HttpClient client(url());
    const bool typed = std::any_of(headers.begin(), headers.end(),
                                   [](const auto& h) { return h.first == "content-type"; });
    if (method == "POST" && !typed) return client.post_json(path, body, headers);
    return client.request(method, path, body, headers);
  }

  HttpResponse post(const std::string& path, const boost::json::object& body) {
    return call("POST", path, boost::json::serialize(body));
  }

 private:
  SystemClock system_clock_;
  const Clock* clock_;
  std::unique_ptr<SqliteStorage> storage_;
  BindingSet bindings_;
  std::unique_ptr<SandboxService> service_;
  std::unique_ptr<SandboxdHandler> handler_;
  std::unique_ptr<HttpServer> server_;
  std::mutex log_mu_;
  std::vector<std::string> log_;
};

inline boost::json::object json_of(const HttpResponse& r) {
  boost::system::error_code ec;
  auto v = boost::json::parse(r.body, ec);
  if (ec || !v.is_object()) {
    ADD_FAILURE() << "not a JSON object (status " << r.status << "): " << r.body;
    return {};
  }
  return v.as_object();
}

// The ErrorResponse's code and message of an answer, as "CODE: message".
inline std::string error_of(const HttpResponse& r) {
  const auto o = json_of(r);
  const auto* code = o.if_contains("code");
  const auto* message = o.if_contains("message");
  if (!code || !code->is_string() || !message || !message->is_string()) return "<not an error>";
  return std::string(code->get_string()) + ": " + std::string(message->get_string());
}

}  // namespace sandbox::test

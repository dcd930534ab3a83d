// sandboxd: the sandbox server (docs/sandboxd.md). It owns sandboxes (a /workspace each, env
// vars, durable code contexts, idle expiry) in one SQLite database, or in a PostgreSQL database
// shared with other sandboxd nodes (--database; docs/several-nodes.md), and runs code through
// its bindings: every built-in engine in process, plus remote runtime servers given with
// --binding.
// See src/server/sandboxd_config.h for the options and src/server/sandboxd_handler.h for the
// routes.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <mutex>

#include <CLI/CLI.hpp>

#include <sandbox/http.h>
#include <sandbox/isolation.h>
#include <sandbox/metrics.h>
#include <sandbox/runtime.h>

#include "http/metrics_http.h"
#include "interpreter/over_store.h"
#include "playground/playground_files.h"
#include "registry.h"
#include "sandbox/local_binding.h"
#include "sandbox/remote_binding.h"
#include "sandbox/sandbox_service.h"
#include "server/sandboxd_config.h"
#include "server/sandboxd_handler.h"
#include "server_flags.h"
#include "storage/postgres/open_storage.h"
#include "workers/worker_metrics.h"

namespace {

std::string uppercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  // The workers' zygote is a fresh copy of this program (docs/security.md#worker-processes).
  sandbox::serve_as_zygote_if_asked(argc, argv, [](const std::string& name) {
    return sandbox::engines::find_engine(name)->make();
  });
  CLI::App app{
      "sandboxd: sandboxes with a /workspace, env vars and durable code contexts, "
      "running code in the built-in engines and remote runtimes"};
  sandbox::tools::add_version_flags(app, "sandboxd");
  sandbox::SandboxdConfig config;
  std::string engine_list;
  std::vector<std::string> bindings;
  app.add_option("--listen", config.listen, "HOST:PORT to listen on (port 0: any free port)")
      ->capture_default_str();
  app.add_option("--metrics-listen", config.metrics_listen,
                 "Also serve GET /metrics (only, without an API key) on this HOST:PORT; on "
                 "--listen, /metrics needs a key when keys are set (docs/sandbox-api.md#metrics)");
  app.add_option("--data", config.data_dir, "Directory of the database (sandboxd.db)")
      ->capture_default_str();
  app.add_option("--engines", engine_list,
                 "Built-in engines to serve, comma-separated (built: " +
                     sandbox::engines::builtin_engine_names() +
                     "; default: " + sandbox::engines::default_engine_names() + ")");
  app.add_option("--binding", bindings,
                 "A remote runtime NAME=http://[TOKEN@]HOST:PORT[/PREFIX] (repeatable)");
  app.add_option("--api-key", config.api_keys,
                 "Accepted bearer token (repeatable; also SANDBOXD_API_KEYS=a,b)");
  app.add_option("--allowed-host", config.allowed_hosts,
                 "Without API keys, a host name (besides localhost, 127.0.0.0/8 and [::1]) that "
                 "requests may name in Host and Origin (repeatable; docs/security.md)");
  sandbox::tools::add_isolation_flags(app, config.isolation, config.worker_processes);
  app.add_option("--threads", config.worker_threads, "Worker threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  sandbox::tools::add_storage_flags(app, config.database_url, config.node_id, config.lease_ttl_ms,
                                    "sandbox");
  // Admission limits (include/sandbox/http.h, src/server/sandboxd_handler.h).
  sandbox::ServeOptions serve{.handle_signals = true};
  std::size_t max_executions_per_key = sandbox::kDefaultMaxExecutionsPerKey;
  app.add_option("--max-connections", serve.max_connections,
                 "Open connections; one more is answered 503 and closed")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
  app.add_option("--max-queued-requests", serve.max_queued_requests,
                 "Requests waiting for a worker thread; one more is answered 503")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
  app.add_option("--max-waiting-per-sandbox", serve.max_waiting_per_key,
                 "Requests waiting (without a worker) for a busy sandbox; one more is answered "
                 "429")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 20));
  app.add_option("--reserved-workers", serve.reserved_workers,
                 "Worker threads executions never take, kept for short requests")
      ->capture_default_str()
      ->check(CLI::Range(0, 1023));
  app.add_option("--max-executions-per-key", max_executions_per_key,
                 "Executions in flight per API key (with --api-key); one more is answered 429; "
                 "0: unlimited")
      ->capture_default_str();
  app.add_option("--max-sandboxes", config.max_sandboxes,
                 "The most sandboxes kept; a request creating one more answers 503 NO_SPACE")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  try {
    if (const char* keys = std::getenv("SANDBOXD_API_KEYS")) {
      for (auto& k : sandbox::split_list(keys)) config.api_keys.push_back(std::move(k));
    }
    if (!engine_list.empty()) config.engines = sandbox::split_list(engine_list);
    for (const auto& b : bindings) config.bindings.push_back(sandbox::parse_binding_spec(b));
    config.idle_ttl_ms = sandbox::parse_sandbox_idle_ttl(std::getenv("SANDBOX_IDLE_TTL_MS"));
    config.file_api = sandbox::parse_file_api(std::getenv("SANDBOX_FILE_API"));
    sandbox::check_config(config);
  } catch (const std::exception& e) {
    std::cerr << "sandboxd: " << e.what() << std::endl;
    return 2;
  }

  try {
    std::vector<const sandbox::engines::EngineEntry*> entries;
    if (config.engines) {
      for (const auto& name : *config.engines) {
        const auto* entry = sandbox::engines::find_engine(name);
        if (!entry) {
          std::cerr << "sandboxd: unknown engine '" << name
                    << "' (built: " << sandbox::engines::builtin_engine_names() << ")" << std::endl;
          return 2;
        }
        entries.push_back(entry);
      }
    } else {
      // Not the test engines (kv): they are served only when named.
      entries = sandbox::engines::default_engines();
    }
    // Each engine is created once: the language engines load their stdlib here.
    std::vector<sandbox::Engine> engines;
    std::vector<std::string> names;
    for (const auto* entry : entries) {
      engines.push_back(entry->make());
      names.push_back(entry->name);
    }
    // GET /metrics (docs/sandbox-api.md#metrics); outlives everything that reports into it.
    sandbox::MetricsRegistry metrics;
    // The workers are forked now, while this process has one thread and has opened no database,
    // socket or tenant data (docs/security.md#worker-processes).
    std::shared_ptr<sandbox::EngineWorkers> workers;
    if (config.isolation == sandbox::Isolation::kProcess && !engines.empty()) {
      workers = sandbox::EngineWorkers::start(
          std::move(engines),
          sandbox::WorkerOptions{
              .workers = config.worker_processes,
              .log =
                  [](const std::string& line) { std::cerr << "sandboxd: " << line << std::endl; },
              .engine_names = names});
      engines.clear();
      for (std::size_t i = 0; i < entries.size(); ++i) engines.push_back(workers->engine(i));
    }
    const std::vector<sandbox::MetricsRegistry::Callback> worker_metrics =
        workers ? sandbox::register_worker_metrics(metrics, workers)
                : std::vector<sandbox::MetricsRegistry::Callback>{};
    sandbox::StorageConfig storage_config;
    storage_config.database_url = config.database_url;
    storage_config.sqlite_path = (std::filesystem::path(config.data_dir) / "sandboxd.db").string();
    storage_config.lease = {
        config.node_id.empty() ? sandbox::default_node_id(config.database_url) : config.node_id,
        config.lease_ttl_ms};
    // Every worker thread and the two expiry threads may hold a connection at once.
    storage_config.max_connections = config.worker_threads + 2;
    if (config.database_url.empty()) std::filesystem::create_directories(config.data_dir);
    const std::unique_ptr<sandbox::Storage> storage = sandbox::open_storage(storage_config);
    sandbox::SystemClock clock;
    {
      sandbox::BindingSet binding_set;
      std::string served;
      for (std::size_t i = 0; i < entries.size(); ++i) {
        auto runtime = sandbox::define_interpreter_runtime(
            std::move(engines[i]), storage->interpreters(),
            sandbox::RuntimeOptions{.clock = &clock, .metrics = &metrics});
        binding_set.add(
            sandbox::make_local_binding(uppercase(entries[i]->name), std::move(runtime)));
        served += (served.empty() ? "" : ",") + uppercase(entries[i]->name);
      }
      for (const auto& spec : config.bindings) {
        binding_set.add(sandbox::make_remote_binding(
            spec.name, sandbox::RemoteBindingOptions{.url = spec.url, .bearer_token = spec.token}));
        served += (served.empty() ? "" : ",") + spec.name + "=" + spec.url;
      }

      sandbox::SandboxService service(
          storage->sandboxes(), clock, binding_set,
          sandbox::SandboxServiceOptions{.sandbox = {.idle_ttl_ms = config.idle_ttl_ms,
                                                     .file_api = config.file_api,
                                                     .max_sandboxes = config.max_sandboxes},
                                         .background_expiry = true,
                                         .metrics = &metrics});
      std::mutex log_mu;
      sandbox::SandboxdHandler handler(
          service, clock,
          sandbox::SandboxdOptions{.api_keys = config.api_keys,
                                   .max_executions_per_key = max_executions_per_key,
                                   .log =
                                       [&](const sandbox::RequestLogEntry& entry) {
                                         const std::string line =
                                             sandbox::format_request_log(entry, clock.now_ms());
                                         std::lock_guard lock(log_mu);
                                         std::cerr << line << std::endl;
                                       },
                                   .static_files = sandbox::playground_static_files(),
                                   .allowed_hosts = config.allowed_hosts,
                                   .metrics = &metrics});
      serve.listen = config.listen;
      serve.worker_threads = config.worker_threads;
      serve.metrics = &metrics;
      sandbox::HttpServer server(handler, serve);
      // --metrics-listen: GET /metrics only, answered on its I/O thread (no worker runs there).
      sandbox::MetricsHandler metrics_handler(metrics);
      std::unique_ptr<sandbox::HttpServer> metrics_server;
      if (!config.metrics_listen.empty()) {
        metrics_server = std::make_unique<sandbox::HttpServer>(
            metrics_handler,
            sandbox::ServeOptions{.listen = config.metrics_listen, .worker_threads = 1});
        metrics_server->start();
      }
      const auto colon = config.listen.rfind(':');
      std::cout << "sandboxd listening on http://" << config.listen.substr(0, colon) << ":"
                << server.port() << " (bindings: " << (served.empty() ? "none" : served)
                << "; data: " << sandbox::describe_storage(storage_config)
                << "; node: " << storage_config.lease.node_id << ")" << std::endl;
      if (sandbox::playground_built()) {
        std::cout << "Playground: http://" << config.listen.substr(0, colon) << ":" << server.port()
                  << "/" << std::endl;
      } else {
        std::cout << "Playground: not in this build (SANDBOX_BUILD_PLAYGROUND=OFF)" << std::endl;
      }
      if (metrics_server) {
        std::cout << "Metrics: http://"
                  << config.metrics_listen.substr(0, config.metrics_listen.rfind(':')) << ":"
                  << metrics_server->port() << "/metrics" << std::endl;
      }
      server.run();
    }
    // Stopped (SIGTERM/SIGINT) and every actor gone: hand this node's sandboxes and interpreter
    // keys to the other nodes now rather than when the leases run out.
    try {
      storage->release_all_leases();
    } catch (const std::exception& e) {
      std::cerr << "sandboxd: releasing leases failed (they expire by themselves): " << e.what()
                << std::endl;
    }
  } catch (const std::exception& e) {
    std::cerr << "sandboxd: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}

// sandbox-runtime: serves one engine built into this tree as a sandbox-workers runtime.
//   sandbox-runtime --engine calc --listen 127.0.0.1:8080 [--data DIR]
//                   [--database postgresql://... [--node-id ID] [--lease-ttl-ms N]]
//                   [--isolation process|thread] [--workers N] [--metrics-listen HOST:PORT]
//   sandbox-runtime --version | --licenses    (docs/redistribution.md)
// Code contexts (engines with sessions) are stored in DIR/interpreters.db, or in a PostgreSQL
// database shared by several runtime nodes (each interpreter key owned by one node at a time,
// storage/lease.h); idle keys expire after INTERPRETER_IDLE_TTL_MS (default 24 h, "0" disables).
// GET /metrics answers in the Prometheus text format on --listen, and with --metrics-listen on a
// listener of its own as well (docs/protocol.md#metrics).
// Engine code runs in confined worker processes (include/sandbox/isolation.h), forked before the
// storage is opened; --isolation thread runs it on the server's threads instead.
#include <iostream>
#include <memory>
#include <vector>

#include <CLI/CLI.hpp>

#include <sandbox/isolation.h>
#include <sandbox/metrics.h>
#include <sandbox/runtime.h>

#include "http/metrics_http.h"
#include "interpreter/over_store.h"
#include "registry.h"
#include "server_flags.h"
#include "storage/lease.h"
#include "storage/postgres/open_storage.h"
#include "workers/worker_metrics.h"

int main(int argc, char** argv) {
  // The workers' zygote is a fresh copy of this program (docs/security.md#worker-processes).
  sandbox::serve_as_zygote_if_asked(argc, argv, [](const std::string& name) {
    return sandbox::engines::find_engine(name)->make();
  });
  CLI::App app{
      "sandbox-runtime: serve a built-in engine (GET /interpreter, POST /execute, "
      "/interpreters/...)"};
  // --version and --licenses answer before --engine is required.
  sandbox::tools::add_version_flags(app, "sandbox-runtime");
  std::string engine_name;
  std::string data_dir;
  sandbox::ServeOptions options{.handle_signals = true};
  app.add_option("--engine", engine_name,
                 "Engine to serve: " + sandbox::engines::builtin_engine_names())
      ->required();
  app.add_option("--listen", options.listen, "HOST:PORT to listen on (port 0: any free port)")
      ->capture_default_str();
  std::string metrics_listen;
  app.add_option("--metrics-listen", metrics_listen,
                 "Also serve GET /metrics (only) on this HOST:PORT (docs/protocol.md#metrics)");
  app.add_option("--data", data_dir,
                 "Directory of the code-context database (default: data/<engine>)");
  app.add_option("--threads", options.worker_threads, "Worker threads running engine code")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  sandbox::RuntimeOptions runtime_options;
  app.add_option("--max-resident", runtime_options.max_resident_instances,
                 "Interpreter keys whose context instance stays in memory between executions "
                 "(least recently used ones are dropped past this; bench/run raises it)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{100'000}));
  sandbox::StorageConfig storage_config;
  std::string node_id;
  sandbox::tools::add_storage_flags(app, storage_config.database_url, node_id,
                                    storage_config.lease.ttl_ms, "interpreter key")
      ->check(CLI::Range(sandbox::kMinLeaseTtlMs, sandbox::kMaxLeaseTtlMs));
  sandbox::Isolation isolation = sandbox::Isolation::kProcess;
  sandbox::WorkerOptions worker_options;
  sandbox::tools::add_isolation_flags(app, isolation, worker_options.workers);
  CLI11_PARSE(app, argc, argv);

  const auto* entry = sandbox::engines::find_engine(engine_name);
  if (!entry) {
    std::cerr << "sandbox-runtime: unknown engine '" << engine_name
              << "' (built: " << sandbox::engines::builtin_engine_names() << ")\n";
    return 2;
  }
  try {
    // GET /metrics; outlives everything that reports into it.
    sandbox::MetricsRegistry metrics;
    runtime_options.metrics = &metrics;
    options.metrics = &metrics;
    sandbox::Engine engine = entry->make();
    // Forked now: this process has one thread and holds no tenant data yet.
    std::shared_ptr<sandbox::EngineWorkers> workers;
    if (isolation == sandbox::Isolation::kProcess) {
      worker_options.log = [](const std::string& line) {
        std::cerr << "sandbox-runtime: " << line << std::endl;
      };
      worker_options.engine_names = {entry->name};
      std::vector<sandbox::Engine> engines;
      engines.push_back(std::move(engine));
      workers = sandbox::EngineWorkers::start(std::move(engines), worker_options);
      engine = workers->engine(0);
    }
    const std::vector<sandbox::MetricsRegistry::Callback> worker_metrics =
        workers ? sandbox::register_worker_metrics(metrics, workers)
                : std::vector<sandbox::MetricsRegistry::Callback>{};
    std::unique_ptr<sandbox::Storage> storage;
    std::unique_ptr<sandbox::InterpreterRuntime> runtime;
    if (!storage_config.database_url.empty()) {
      if (!sandbox::is_postgres_url(storage_config.database_url)) {
        std::cerr << "sandbox-runtime: --database expects a PostgreSQL URL, got '"
                  << storage_config.database_url << "'\n";
        return 2;
      }
      if (!sandbox::postgres_built()) {
        std::cerr << "sandbox-runtime: --database: " << sandbox::kPostgresNotBuiltMessage << "\n";
        return 2;
      }
      storage_config.lease.node_id =
          node_id.empty() ? sandbox::default_node_id(storage_config.database_url) : node_id;
      storage_config.max_connections = options.worker_threads + 1;
      storage = sandbox::open_storage(storage_config);
      runtime = sandbox::define_interpreter_runtime(std::move(engine), storage->interpreters(),
                                                    runtime_options);
    } else {
      if (data_dir.empty()) data_dir = "data/" + entry->name;
      runtime_options.data_dir = data_dir;
      runtime = sandbox::define_interpreter_runtime(std::move(engine), runtime_options);
    }
    {
      // The runtime's routes, with GET /metrics answered before them.
      sandbox::MetricsHandler handler(metrics, runtime.get());
      sandbox::HttpServer server(handler, options);
      sandbox::MetricsHandler metrics_only(metrics);
      std::unique_ptr<sandbox::HttpServer> metrics_server;
      if (!metrics_listen.empty()) {
        metrics_server = std::make_unique<sandbox::HttpServer>(
            metrics_only, sandbox::ServeOptions{.listen = metrics_listen, .worker_threads = 1});
        metrics_server->start();
      }
      std::cout << "sandbox-runtime (" << entry->name << ") listening on port " << server.port()
                << " (isolation: " << sandbox::isolation_name(isolation) << ")" << std::endl;
      if (metrics_server) {
        std::cout << "sandbox-runtime metrics on port " << metrics_server->port() << std::endl;
      }
      server.run();
    }
    runtime.reset();
    // Hand this node's interpreter keys to the other nodes now rather than after the TTL.
    if (storage) storage->release_all_leases();
  } catch (const std::exception& e) {
    std::cerr << "sandbox-runtime: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}

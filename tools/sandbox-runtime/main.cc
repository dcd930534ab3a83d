// sandbox-runtime: serves one engine built into this tree as a sandbox-workers runtime.
//   sandbox-runtime --engine calc --listen 127.0.0.1:8080 [--data DIR]
//                   [--database postgresql://... [--node-id ID] [--lease-ttl-ms N]]
//                   [--isolation process|thread] [--workers N]
//   sandbox-runtime --version | --licenses    (docs/redistribution.md)
// Code contexts (engines with sessions) are stored in DIR/interpreters.db, or in a PostgreSQL
// database shared by several runtime nodes (each interpreter key owned by one node at a time,
// storage/lease.h); idle keys expire after INTERPRETER_IDLE_TTL_MS (default 24 h, "0" disables).
// Engine code runs in confined worker processes (include/sandbox/isolation.h), forked before the
// storage is opened; --isolation thread runs it on the server's threads instead.
#include <iostream>

#include <CLI/CLI.hpp>

#include <sandbox/isolation.h>
#include <sandbox/runtime.h>
#include <sandbox/version.h>

#include "notices/third_party_notices.h"
#include "registry.h"
#include "storage/postgres/open_storage.h"

int main(int argc, char** argv) {
  // The workers' zygote is a fresh copy of this program (docs/security.md#worker-processes).
  sandbox::serve_as_zygote_if_asked(argc, argv, [](const std::string& name) {
    return sandbox::engines::find_engine(name)->make();
  });
  CLI::App app{
      "sandbox-runtime: serve a built-in engine (GET /interpreter, POST /execute, "
      "/interpreters/...)"};
  // --version and --licenses answer before --engine is required
  // (docs/redistribution.md#versions).
  app.set_version_flag("--version", "sandbox-runtime " + std::string(sandbox::kVersion));
  app.add_flag_callback(
      "--licenses",
      [] {
        std::cout << sandbox::third_party_notices() << std::flush;
        throw CLI::Success();
      },
      "Print the third-party notices of the components built into sandbox-runtime and exit");
  std::string engine_name;
  std::string data_dir;
  sandbox::ServeOptions options{.handle_signals = true};
  app.add_option("--engine", engine_name,
                 "Engine to serve: " + sandbox::engines::builtin_engine_names())
      ->required();
  app.add_option("--listen", options.listen, "HOST:PORT to listen on (port 0: any free port)")
      ->capture_default_str();
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
  app.add_option("--database", storage_config.database_url,
                 "PostgreSQL database shared with other runtime nodes, "
                 "postgresql://USER@HOST:PORT/DBNAME (default: SQLite in --data)");
  app.add_option("--node-id", node_id,
                 "This node's id in the ownership leases (default: the host name)");
  app.add_option("--lease-ttl-ms", storage_config.lease.ttl_ms,
                 "How long this node keeps an interpreter key it no longer serves")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{100}, std::int64_t{86'400'000}));
  std::string isolation = "process";
  sandbox::WorkerOptions worker_options;
  app.add_option("--isolation", isolation,
                 "Where engine code runs: process (worker processes confined by seccomp, "
                 "Landlock and namespaces: docs/security.md) or thread (this process's threads)")
      ->capture_default_str()
      ->check(CLI::IsMember({"process", "thread"}));
  app.add_option("--workers", worker_options.workers,
                 "Worker processes with --isolation process (0: one per CPU, at least 2)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{0}, sandbox::kMaxWorkerProcesses));
  CLI11_PARSE(app, argc, argv);

  const auto* entry = sandbox::engines::find_engine(engine_name);
  if (!entry) {
    std::cerr << "sandbox-runtime: unknown engine '" << engine_name
              << "' (built: " << sandbox::engines::builtin_engine_names() << ")\n";
    return 2;
  }
  try {
    sandbox::Engine engine = entry->make();
    // Forked now: this process has one thread and holds no tenant data yet.
    std::shared_ptr<sandbox::EngineWorkers> workers;
    if (sandbox::parse_isolation(isolation) == sandbox::Isolation::kProcess) {
      worker_options.log = [](const std::string& line) {
        std::cerr << "sandbox-runtime: " << line << std::endl;
      };
      worker_options.engine_names = {entry->name};
      std::vector<sandbox::Engine> engines;
      engines.push_back(std::move(engine));
      workers = sandbox::EngineWorkers::start(std::move(engines), worker_options);
      engine = workers->engine(0);
    }
    std::unique_ptr<sandbox::Storage> storage;
    std::unique_ptr<sandbox::InterpreterRuntime> runtime;
    if (!storage_config.database_url.empty()) {
      if (!sandbox::is_postgres_url(storage_config.database_url)) {
        std::cerr << "sandbox-runtime: --database expects a PostgreSQL URL, got '"
                  << storage_config.database_url << "'\n";
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
    runtime->serve(options, [&](std::uint16_t port) {
      std::cout << "sandbox-runtime (" << entry->name << ") listening on port " << port
                << " (isolation: " << isolation << ")" << std::endl;
    });
    runtime.reset();
    // Hand this node's interpreter keys to the other nodes now rather than after the TTL.
    if (storage) storage->release_all_leases();
  } catch (const std::exception& e) {
    std::cerr << "sandbox-runtime: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}

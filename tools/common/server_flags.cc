#include "server_flags.h"

#include <iostream>

#include <sandbox/version.h>

#include "notices/third_party_notices.h"

namespace sandbox::tools {

void add_version_flags(CLI::App& app, std::string_view program) {
  app.set_version_flag("--version", std::string(program) + " " + std::string(kVersion));
  app.add_flag_callback(
      "--licenses",
      [] {
        std::cout << third_party_notices() << std::flush;
        throw CLI::Success();
      },
      "Print the third-party notices of the components built into " + std::string(program) +
          " and exit");
}

void add_isolation_flags(CLI::App& app, Isolation& isolation, std::size_t& workers) {
  app.add_option_function<std::string>(
         "--isolation",
         [&isolation](const std::string& name) {
           // The check below admits only the names parse_isolation knows.
           isolation = parse_isolation(name).value_or(isolation);
         },
         "Where engine code runs: process (worker processes confined by seccomp, Landlock and "
         "namespaces; docs/security.md) or thread (this process's threads)")
      ->default_str(std::string(isolation_name(isolation)))
      ->check(CLI::IsMember({std::string(isolation_name(Isolation::kProcess)),
                             std::string(isolation_name(Isolation::kThread))}));
  app.add_option("--workers", workers,
                 "Worker processes with --isolation process (0: one per CPU, at least 2)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{0}, kMaxWorkerProcesses));
}

CLI::Option* add_storage_flags(CLI::App& app, std::string& database_url, std::string& node_id,
                               std::int64_t& lease_ttl_ms, std::string_view owned) {
  app.add_option("--database", database_url,
                 "PostgreSQL database shared with the other nodes, "
                 "postgresql://USER@HOST:PORT/DBNAME (default: SQLite in --data)");
  app.add_option("--node-id", node_id,
                 "This node's id in the ownership leases (default: the host name with "
                 "--database, else local)");
  return app
      .add_option("--lease-ttl-ms", lease_ttl_ms,
                  "How long this node keeps its lease on each " + std::string(owned) +
                      " it no longer serves before another node may take it")
      ->capture_default_str();
}

}  // namespace sandbox::tools

// sandboxd's configuration: what the command line and the environment say, checked before
// anything is opened or bound.
//
//   --listen HOST:PORT        default 127.0.0.1:8787
//   --data DIR                default data/sandboxd (relative to the working directory); the
//                             SQLite database DIR/sandboxd.db holds sandboxes and contexts
//   --engines a,b,...         built-in engines to serve (default: every engine of the build),
//                             each as binding <NAME> (uppercase) and under /runtimes/<NAME>/
//   --binding NAME=URL        a remote runtime, URL http://[TOKEN@]HOST:PORT[/PREFIX] (repeatable)
//   --api-key KEY             accepted bearer token (repeatable); also SANDBOXD_API_KEYS=a,b
//   --database URL            a PostgreSQL database shared by several sandboxd nodes
//                             (postgresql://USER@HOST:PORT/DBNAME or libpq key=value pairs)
//                             instead of the SQLite file; docs/several-nodes.md
//   --node-id ID              this node's id in the lease rows (default: the host name with
//                             --database, "local" with SQLite)
//   --lease-ttl-ms N          how long a node's ownership of a sandbox lasts without use
//                             (default 30000; storage/lease.h)
//   --isolation process|thread where engine code runs: confined worker processes (default;
//                             include/sandbox/isolation.h) or this process's threads
//   --workers N               worker processes (default 0: one per CPU, at least 2)
//   --metrics-listen HOST:PORT also serve GET /metrics (only) on this address, without an API
//                             key (docs/sandbox-api.md#metrics); on the main listener it needs
//                             one when keys are set
//   --max-sandboxes N         the most sandboxes kept (default kMaxSandboxes, 10000); a request
//                             creating one more answers 503 NO_SPACE
//   SANDBOX_IDLE_TTL_MS, SANDBOX_FILE_API, INTERPRETER_IDLE_TTL_MS
//   docs/sandbox-api.md#configuration
//
// Safety rule: a listen address that is not loopback requires at least one API key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sandbox/isolation.h>
#include <sandbox/protocol.h>

namespace sandbox {

struct BindingSpec {
  std::string name;
  std::string url;    // without credentials
  std::string token;  // from http://TOKEN@host/..., sent as a bearer token
};

struct SandboxdConfig {
  std::string listen = "127.0.0.1:8787";
  // --metrics-listen: empty, /metrics only on `listen`.
  std::string metrics_listen;
  std::string data_dir = "data/sandboxd";
  // nullopt: every built-in engine.
  std::optional<std::vector<std::string>> engines;
  std::vector<BindingSpec> bindings;
  std::vector<std::string> api_keys;
  // --allowed-host: names accepted in Host and Origin besides the loopback ones (without API
  // keys; http/site_guard.h).
  std::vector<std::string> allowed_hosts;
  std::int64_t idle_ttl_ms = 86'400'000;
  bool file_api = true;
  int worker_threads = 16;
  Isolation isolation = Isolation::kProcess;
  std::size_t worker_processes = 0;  // 0: one per CPU, at least 2
  // Empty: SQLite in data_dir. Otherwise a PostgreSQL connection string.
  std::string database_url;
  // Empty: default_node_id(database_url) (storage/postgres/open_storage.h).
  std::string node_id;
  std::int64_t lease_ttl_ms = 30'000;
  // --max-sandboxes: the most sandboxes kept (kMaxSandboxes by default; at least 1).
  std::size_t max_sandboxes = kMaxSandboxes;
};

// "NAME=http://[TOKEN@]HOST[:PORT][/PREFIX]". Throws std::invalid_argument with a message naming
// what is wrong (name pattern, name longer than 64, not an http URL).
[[nodiscard]] BindingSpec parse_binding_spec(std::string_view spec);

// "a,b, c" -> {"a", "b", "c"} (empty items dropped).
std::vector<std::string> split_list(std::string_view list);

// Whether HOST of "HOST:PORT" is a loopback address (127.0.0.0/8, ::1, localhost).
bool is_loopback_listen(std::string_view listen);

// Throws std::invalid_argument when the configuration must not start: a non-loopback listen
// address without API keys, a malformed listen or metrics listen address (or the same as the
// main one), duplicate binding names, a database URL
// that is not PostgreSQL's, a lease TTL below 100 ms.
void check_config(const SandboxdConfig& config);

}  // namespace sandbox

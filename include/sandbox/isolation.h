// Worker processes: the second boundary behind WebAssembly (docs/security.md#worker-processes).
//
// EngineWorkers runs engines in a pool of worker processes that hold no tenant data. start()
// forks a zygote while the calling process is still single-threaded and holds nothing of any
// tenant (no database, no listening socket, no API key); every worker is forked from the zygote,
// confines itself (seccomp allow-list in kill mode, no_new_privs, Landlock without file-system
// access, no core files, its own network namespace where the kernel allows) and then serves
// calls over its channel. engine(i) is a sandbox::Engine with the identity and limits of the
// i-th engine whose run and sessions execute in the workers, so a runtime built on it
// (define_interpreter_runtime, runtime.h) needs no other change:
//
//   std::vector<sandbox::Engine> engines{make_python_engine()};
//   auto workers = sandbox::EngineWorkers::start(std::move(engines), {});  // before any thread
//   auto runtime = sandbox::define_interpreter_runtime(workers->engine(0), storage, options);
//
// A worker's death (a crash in host code, the seccomp filter killing it, SIGKILL) fails only
// the calls in flight in it with WorkerLostError (503, retryable: docs/errors.md); the session
// instances it held report invalid(), so the server restores their contexts from the last
// snapshot on the next execute, in a replacement the zygote forks. The server never dies of a
// worker's fault.
//
// Session instances stay in the worker that booted or restored them; the instances that mount
// the same /workspace mirror (one interpreter key's contexts) go to the same worker, which keeps
// a replica of that mirror and exchanges only the changed files with the server around each call.
// The server keeps a copy of each instance's linear memory (the snapshot's view, updated with
// the pages the worker reports written), so snapshots and restores work as in one process.
//
// Thread-safety: engine(i)'s functions may be called from any number of threads, as
// engine.h allows; stats() from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <sandbox/engine.h>
#include <sandbox/errors.h>

namespace sandbox {

// Where engine code runs: in worker processes (the default on Linux) or on the server's own
// threads (for platforms without it, and for comparison: --isolation thread).
enum class Isolation { kProcess, kThread };

// "process" / "thread".
std::string_view isolation_name(Isolation isolation);
// The isolation named `name`, or nullopt.
[[nodiscard]] std::optional<Isolation> parse_isolation(std::string_view name);

// The most worker processes --workers accepts.
inline constexpr std::size_t kMaxWorkerProcesses = 256;
// How long the server waits for a worker's answer to one call before it kills the worker. A
// call is bounded by the engine's own limits far sooner (embedded.h: 30 s per call, 120 s for
// a boot); this catches a worker that stopped answering.
inline constexpr std::chrono::seconds kWorkerCallTimeout{300};

struct WorkerOptions {
  // Worker processes; 0: the number of CPUs, at least 2.
  std::size_t workers = 0;
  // Confine the zygote and the workers (docs/security.md#worker-processes). Off only to find out
  // whether a failure comes from the confinement.
  bool confine = true;
  // Receives one line per worker started and lost (with the cause), for the server's log.
  std::function<void(const std::string&)> log;
  // Empty: the zygote is a fork of this process and inherits its memory as it is at start().
  // Otherwise one name per engine of start(), in order: the zygote is a fresh copy of this
  // program (/proc/self/exe, empty environment) that inherits none of this process's memory
  // (the command line, API keys, a database URL) and makes each engine itself with the
  // make_engine the program's main() gives serve_as_zygote_if_asked; a build id that differs
  // from the engine's here (the program was replaced on disk) stops it.
  std::vector<std::string> engine_names;
};

// For a program that starts its workers with WorkerOptions::engine_names: call it first thing in
// main(). When this process is such a zygote, it serves as one and never returns; otherwise it
// returns at once.
void serve_as_zygote_if_asked(int argc, char** argv,
                              const std::function<Engine(const std::string& name)>& make_engine);

// The error a call gets when its worker died while running it. The code may have run in part;
// nothing was stored for it.
class WorkerLostError : public std::runtime_error, public ClassifiedError {
 public:
  using std::runtime_error::runtime_error;
  ErrorKind kind() const noexcept override { return ErrorKind::kWorkerLost; }
  std::string wire_message() const override { return what(); }
};

class EngineWorkers {
 public:
  // Starts the zygote and the workers. Call it while the process has one thread (before the
  // HTTP server, the storage and any guest call), with engines that have not run yet: the
  // workers inherit them as they are (or, with engine_names, make their own). Throws
  // std::system_error when a process cannot be made.
  static std::shared_ptr<EngineWorkers> start(std::vector<Engine> engines, WorkerOptions options);

  virtual ~EngineWorkers() = default;

  // The i-th engine of start(), running in the workers.
  virtual Engine engine(std::size_t index) const = 0;

  struct Stats {
    std::size_t workers = 0;     // the pool's size
    std::uint64_t started = 0;   // workers started, replacements included
    std::uint64_t lost = 0;      // workers that died while the pool ran
    std::vector<int> pids;       // the live workers
    std::size_t in_flight = 0;   // calls the live workers are running
    std::size_t workspaces = 0;  // /workspace mirrors whose instances live in a worker
    std::string confinement;     // what the last worker reported, e.g. "seccomp, ..."
    std::string last_exit;       // how the last worker that ended ended, e.g. "SIGSYS"
  };
  virtual Stats stats() const = 0;

  // What a metrics scrape reads (docs/sandbox-api.md#metrics): cheap, and never waits for a
  // worker being forked, unlike stats().
  struct Counts {
    std::size_t live = 0;        // the pool's workers alive now
    std::uint64_t lost = 0;      // as Stats::lost
    std::uint64_t restarts = 0;  // workers started in place of a lost one
  };
  virtual Counts counts() const = 0;
};

}  // namespace sandbox

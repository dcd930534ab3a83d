// The zygote: the process every worker is forked from (docs/security.md#worker-processes).
//
// The server forks it once, at start, while the server is single-threaded and holds no tenant
// data; the zygote then holds only the engines (not yet run) and its channel. Forking a
// replacement worker from the server later would hand the worker the server's memory (every
// tenant's workspace and snapshots, the API keys) and locks held by its other threads; forking
// it from the zygote hands it nothing. The zygote runs no guest code. It confines itself with
// the zygote policy (which still allows fork), answers each kSpawn with a new worker's pid and
// the server's end of that worker's channel, and reports each worker's end (kExited with the
// wait status). On kPrepare it boots an engine to make its image, which every worker forked
// after that starts with (docs/security.md#the-zygote), and forks single-threaded still. It
// exits when the server closes its channel.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <sys/types.h>

#include <sandbox/engine.h>

#include "workers/channel.h"

namespace sandbox::workers {

struct ZygoteProcess {
  UniqueFd channel;
  pid_t pid = -1;
};

// Forks the zygote, which serves `engines` as this process holds them. `confine` applies the
// confinement to the zygote and to each worker. Throws std::system_error when the process or its
// channel cannot be made.
ZygoteProcess start_zygote(const std::vector<Engine>& engines, bool confine);

// The environment variables a zygote started by start_zygote_program (and so each worker) gets
// from the server, when they are set: the write-tracking knobs (docs/snapshot-format.md,
// "Change detection"), so that a benchmark or an operator setting them reaches the processes
// that track writes. Nothing else of the server's environment is passed on.
inline constexpr const char* kWorkerEnvironment[] = {"SANDBOX_WRITE_TRACKING", "SANDBOX_HOT_PAGES"};

// Starts the zygote as a fresh copy of this program (/proc/self/exe, with only the variables of
// kWorkerEnvironment in its environment), which inherits none of this process's memory; it makes
// each engine (name, build id) with the make_engine of serve_as_zygote, which the program's main()
// calls first.
ZygoteProcess start_zygote_program(const std::vector<std::pair<std::string, std::string>>& engines,
                                   bool confine);

// When this process was started by start_zygote_program, serves as the zygote and never returns;
// otherwise returns at once.
void serve_as_zygote(int argc, char** argv,
                     const std::function<Engine(const std::string&)>& make_engine);

}  // namespace sandbox::workers

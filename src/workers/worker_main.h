// The worker process: runs engine code for the server that forked it (through the zygote), with
// nothing but its channel and the lanes sent over it (docs/security.md#worker-processes).
//
// It serves the calls of src/workers/worker_protocol.h: a thread per lane the server sends, which
// handles that lane's calls one after another and ends with it (and, for calls sent on the channel
// itself, a pool of threads that grows to the number of those in flight). It keeps the session
// instances the server booted or restored in it, and one /workspace replica per interpreter key
// those instances mount. It exits when the server closes the channel.
#pragma once

#include <string>
#include <vector>

#include <sandbox/engine.h>

#include "workers/channel.h"

namespace sandbox::workers {

// Serves `channel` until the server closes it, then ends the process (_exit). The process must
// already be confined: this runs guest code. The first frame sent (a kReply for call 0) carries
// `confinement`, the description of how the process is confined, for the server's log.
[[noreturn]] void run_worker(UniqueFd channel, const std::vector<Engine>& engines,
                             const std::string& confinement);

}  // namespace sandbox::workers

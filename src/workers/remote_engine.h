// The Engine that runs engine `index` of a Pool in its worker processes: the same identity and
// limits, `run` and `sessions` forwarded over the workers' channels, SessionInstances that are
// handles on instances living in a worker (docs/security.md#worker-processes).
#pragma once

#include <cstddef>
#include <memory>

#include <sandbox/engine.h>

#include "workers/pool.h"

namespace sandbox::workers {

Engine make_remote_engine(const std::shared_ptr<Pool>& pool, std::size_t index);

}  // namespace sandbox::workers

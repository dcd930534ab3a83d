// The worker-process series of docs/sandbox-api.md#metrics, read from EngineWorkers::counts()
// at each scrape: sandbox_worker_processes, sandbox_worker_processes_lost_total and
// sandbox_worker_restarts_total.
#pragma once

#include <memory>
#include <vector>

#include <sandbox/isolation.h>
#include <sandbox/metrics.h>

namespace sandbox {

// Registers the series in `registry`; they read `workers` while it lives (0 once it is gone) and
// stay registered as long as the returned handles.
std::vector<MetricsRegistry::Callback> register_worker_metrics(
    MetricsRegistry& registry, const std::shared_ptr<const EngineWorkers>& workers);

}  // namespace sandbox

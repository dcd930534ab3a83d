#include "workers/worker_metrics.h"

namespace sandbox {

std::vector<MetricsRegistry::Callback> register_worker_metrics(
    MetricsRegistry& registry, const std::shared_ptr<const EngineWorkers>& workers) {
  using Counts = EngineWorkers::Counts;
  const std::weak_ptr<const EngineWorkers> weak = workers;
  const auto reading = [weak](double (*pick)(const Counts&)) {
    return [weak, pick] {
      const auto w = weak.lock();
      return w ? pick(w->counts()) : 0.0;
    };
  };
  std::vector<MetricsRegistry::Callback> handles;
  handles.push_back(registry.gauge_callback(
      "sandbox_worker_processes", "Worker processes alive now (--isolation process)", {},
      reading([](const Counts& c) { return static_cast<double>(c.live); })));
  handles.push_back(registry.counter_callback(
      "sandbox_worker_processes_lost_total",
      "Worker processes that died while the pool ran (a crash, the seccomp filter, a kill)", {},
      reading([](const Counts& c) { return static_cast<double>(c.lost); })));
  handles.push_back(registry.counter_callback(
      "sandbox_worker_restarts_total", "Worker processes started in place of a lost one", {},
      reading([](const Counts& c) { return static_cast<double>(c.restarts); })));
  return handles;
}

}  // namespace sandbox

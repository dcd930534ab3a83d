#include "interpreter/engine_metrics.h"

namespace sandbox {

EngineMetrics EngineMetrics::make(MetricsRegistry* registry, const std::string& language,
                                  bool contexts) {
  EngineMetrics m;
  if (registry == nullptr) return m;
  constexpr const char* kKinds[] = {"stateless", "context"};
  constexpr const char* kOutcomes[] = {"ok", "error", "limit", "failed"};
  for (int k = 0; k < (contexts ? 2 : 1); ++k) {
    for (int o = 0; o < 4; ++o) {
      m.executions[k][o] = &registry->counter(
          "sandbox_executions_total",
          "Executions by language, kind (stateless or context) and outcome",
          {{"language", language}, {"kind", kKinds[k]}, {"outcome", kOutcomes[o]}});
    }
  }
  const MetricLabels labels{{"language", language}};
  m.stateless = &registry->histogram("sandbox_stateless_execution_seconds",
                                     "Wall time of the engine call of a stateless execution",
                                     kLatencyBucketsSeconds, labels);
  if (!contexts) return m;
  m.step = &registry->histogram(
      "sandbox_context_step_seconds",
      "Wall time of a context execution and its snapshot, without the restore or boot before it",
      kLatencyBucketsSeconds, labels);
  m.restore =
      &registry->histogram("sandbox_context_restore_seconds",
                           "Wall time of restoring a context's instance from its stored snapshot",
                           kLatencyBucketsSeconds, labels);
  m.snapshot_bytes = &registry->counter(
      "sandbox_snapshot_bytes_written_total",
      "Bytes of snapshot chunks written to storage (compressed, as stored)", labels);
  return m;
}

EngineMetrics::Outcome EngineMetrics::outcome_of(const EngineOutcome& outcome) {
  if (!outcome.error) return Outcome::kOk;
  return outcome.error->name == kExecutionLimitErrorName ? Outcome::kLimit : Outcome::kError;
}

}  // namespace sandbox

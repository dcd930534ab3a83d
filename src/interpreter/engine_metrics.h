// EngineMetrics: the series one engine's runtime feeds (docs/sandbox-api.md#metrics), each
// labelled with the engine's language: executions by kind and outcome, the latency histograms of
// stateless executions, context steps and restores, and the snapshot bytes written. Made once per
// runtime from the registry (registering the series), then passed by value to what records them;
// made without a registry, every record is a no-op.
//
// Thread-safety: the record functions may be called from any thread (atomics, no lock).
#pragma once

#include <cstdint>
#include <string>

#include <sandbox/engine.h>
#include <sandbox/metrics.h>

namespace sandbox {

struct EngineMetrics {
  enum class Kind { kStateless, kContext };
  // ok: no error; error: the guest's error (a trap or a throwing engine included); limit: an
  // ExecutionLimitError; failed: no outcome at all (the worker process died, the round could not
  // be stored), answered with an error status.
  enum class Outcome { kOk, kError, kLimit, kFailed };

  // The series of `language` in `registry`: the stateless ones, and with `contexts` (the engine
  // has sessions) the context ones too; a series not made is null, and so are all without a
  // registry (records to a null series do nothing).
  static EngineMetrics make(MetricsRegistry* registry, const std::string& language, bool contexts);

  // The outcome label of a guest outcome.
  static Outcome outcome_of(const EngineOutcome& outcome);

  void count(Kind kind, Outcome outcome) const {
    if (Counter* c = executions[static_cast<int>(kind)][static_cast<int>(outcome)]) c->add();
  }
  static void observe(Histogram* h, double ms) {
    if (h != nullptr) h->observe(ms / 1000.0);
  }
  void stateless_ms(double ms) const { observe(stateless, ms); }
  void step_ms(double ms) const { observe(step, ms); }
  void restore_ms(double ms) const { observe(restore, ms); }
  void snapshot_bytes_written(std::uint64_t bytes) const {
    if (snapshot_bytes != nullptr) snapshot_bytes->add(bytes);
  }

  Counter* executions[2][4] = {};
  Histogram* stateless = nullptr;
  Histogram* step = nullptr;
  Histogram* restore = nullptr;
  Counter* snapshot_bytes = nullptr;
};

}  // namespace sandbox

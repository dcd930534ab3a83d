// Admission: which of HttpServer's requests reach a worker thread, and in what order; the
// admission limits 2 and 3 of include/sandbox/http.h, without any socket.
//
// A request is a WorkerPool::Job that runs its handler. Without a serial key it goes to the pool
// with try_submit(), refused when `max_queued` jobs wait already (503, limit
// "max_queued_requests"). Requests with the same serial key reach the pool one at a time, in
// arrival order: the first finds the key idle and goes to the pool (refused like the others when
// it is full, and the key left idle); the next ones are parked in the key's queue, holding no
// worker, at most `max_waiting_per_key` of them (one more: 429, limit "max_waiting_per_key"); the
// job of a key calls key_done() when it is done, which submits the next parked one with
// WorkerPool::submit (it was admitted when it was parked, so a full queue does not refuse it).
//
//   key idle --admit--> running --admit--> running, k parked (k <= max_waiting_per_key)
//   running, k parked --key_done--> running (the next), k-1 parked
//   running, 0 parked --key_done--> key idle (forgotten)
//
// With a MetricsRegistry (register_metrics) it counts its refusals
// (sandbox_http_refusals_total{limit}) and reports sandbox_http_queued_requests and
// sandbox_http_parked_requests (docs/sandbox-api.md#metrics).
//
// Thread-safety: admit(), key_done(), parked() and queued() may be called from any thread,
// including from a job. One mutex guards the keys' queues; it is held while a job is handed to
// the pool (so that a key's jobs reach it in order), never while a job runs. The destructor
// joins the pool's threads (running the jobs already queued, which may still call key_done())
// before the queues go.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <sandbox/http.h>
#include <sandbox/metrics.h>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "http/worker_pool.h"

namespace sandbox {

class Admission {
 public:
  // Admits to `pool` (not null; its `max_queued` is the bound of limit 2), at most
  // `max_waiting_per_key` parked per key.
  Admission(std::unique_ptr<WorkerPool> pool, std::size_t max_waiting_per_key);
  ~Admission() = default;
  Admission(const Admission&) = delete;
  Admission& operator=(const Admission&) = delete;

  // Hands `job` to the pool (`long_running` as WorkerPool::try_submit), or parks it behind the
  // running job of `key` (non-empty). Nullopt when admitted: the job runs once, and when `key`
  // is non-empty it must call key_done(key) once when it is done with the key (its last step).
  // Otherwise the refusal to answer (busy_response: 503 kOverloaded "max_queued_requests", or
  // 429 kTooManyRequests "max_waiting_per_key"), counted, and `job` destroyed without running.
  std::optional<HttpResponse> admit(std::unique_ptr<WorkerPool::Job> job, const std::string& key,
                                    bool long_running) SANDBOX_EXCLUDES(mu_);

  // The running job of `key` is done: the next one parked behind it goes to the pool, or, none
  // parked, the key is idle again. Ignored for a key that is idle.
  void key_done(const std::string& key) SANDBOX_EXCLUDES(mu_);

  // Counts the refusals in `registry` and registers the gauges named above. Once, before admit()
  // is first called; `registry` must outlive this.
  void register_metrics(MetricsRegistry& registry);

  // Jobs parked behind their key now.
  std::size_t parked() const SANDBOX_EXCLUDES(mu_);
  // Jobs admitted and waiting for a worker thread now (WorkerPool::queued).
  std::size_t queued() const { return pool_->queued(); }

 private:
  struct Parked {
    std::unique_ptr<WorkerPool::Job> job;
    bool long_running = false;
  };
  // A key with a job on the pool, and the jobs parked behind it.
  struct KeyQueue {
    bool active = false;
    std::deque<Parked> waiting;
  };

  static void count(Counter* counter) {
    if (counter != nullptr) counter->add();
  }

  std::size_t max_waiting_per_key_;
  mutable Mutex mu_;
  std::unordered_map<std::string, KeyQueue> keys_ SANDBOX_GUARDED_BY(mu_);
  // Declared after `keys_`, so destroyed (its threads joined) first: a job finishing during the
  // destruction still reaches key_done() on a live map (found by ThreadSanitizer).
  std::unique_ptr<WorkerPool> pool_;
  // With metrics: the refusal counters, and the callbacks that read the members above (declared
  // last, so unregistered first).
  Counter* refused_queue_ = nullptr;
  Counter* refused_waiting_ = nullptr;
  std::vector<MetricsRegistry::Callback> metric_callbacks_;
};

}  // namespace sandbox

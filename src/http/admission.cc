#include "http/admission.h"

#include <utility>

#include "http/metrics_http.h"

namespace sandbox {

Admission::Admission(std::unique_ptr<WorkerPool> pool, std::size_t max_waiting_per_key)
    : max_waiting_per_key_(max_waiting_per_key), pool_(std::move(pool)) {}

void Admission::register_metrics(MetricsRegistry& registry) {
  refused_queue_ = &refusal_counter(registry, "max_queued_requests");
  refused_waiting_ = &refusal_counter(registry, "max_waiting_per_key");
  metric_callbacks_.push_back(registry.gauge_callback(
      "sandbox_http_queued_requests", "Requests admitted and waiting for a worker thread", {},
      [this] { return static_cast<double>(queued()); }));
  metric_callbacks_.push_back(registry.gauge_callback(
      "sandbox_http_parked_requests",
      "Requests waiting, without a worker thread, behind another request for the same sandbox "
      "or interpreter key",
      {}, [this] { return static_cast<double>(parked()); }));
}

std::optional<HttpResponse> Admission::admit(std::unique_ptr<WorkerPool::Job> job,
                                             const std::string& key, bool long_running) {
  const auto pool_full = [this] {
    count(refused_queue_);
    return busy_response(ErrorKind::kOverloaded,
                         "The server is busy: too many requests wait for a worker; retry later",
                         "max_queued_requests");
  };
  if (key.empty()) {
    if (pool_->try_submit(std::move(job), long_running)) return std::nullopt;
    return pool_full();
  }
  MutexLock lock(mu_);
  const auto [it, fresh] = keys_.try_emplace(key);
  KeyQueue& queue = it->second;
  if (!queue.active) {
    if (!pool_->try_submit(std::move(job), long_running)) {
      keys_.erase(it);
      return pool_full();
    }
    queue.active = true;
    return std::nullopt;
  }
  if (queue.waiting.size() >= max_waiting_per_key_) {
    count(refused_waiting_);
    return busy_response(ErrorKind::kTooManyRequests,
                         "Too many requests are waiting for " + key + "; retry later",
                         "max_waiting_per_key");
  }
  queue.waiting.push_back(Parked{std::move(job), long_running});
  return std::nullopt;
}

void Admission::key_done(const std::string& key) {
  MutexLock lock(mu_);
  const auto it = keys_.find(key);
  if (it == keys_.end()) return;
  if (it->second.waiting.empty()) {
    keys_.erase(it);
    return;
  }
  Parked next = std::move(it->second.waiting.front());
  it->second.waiting.pop_front();
  pool_->submit(std::move(next.job), next.long_running);  // admitted when it was parked
}

std::size_t Admission::parked() const {
  MutexLock lock(mu_);
  std::size_t parked = 0;
  for (const auto& [key, queue] : keys_) parked += queue.waiting.size();
  return parked;
}

}  // namespace sandbox

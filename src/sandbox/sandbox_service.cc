#include "sandbox/sandbox_service.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <unordered_map>

#include <sandbox/client.h>
#include <sandbox/protocol.h>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "http/error_answers.h"
#include "interpreter/fifo_lock.h"

namespace sandbox {

std::int64_t parse_sandbox_idle_ttl(const char* value) {
  if (!value || !*value) return kDefaultIdleTtlMs;
  char* end = nullptr;
  const double v = std::strtod(value, &end);
  if (end == value || *end != '\0' || !std::isfinite(v) || v < 0 ||
      v > static_cast<double>(kMaxIdleTtlMs)) {
    return kDefaultIdleTtlMs;
  }
  return static_cast<std::int64_t>(v);
}

bool parse_file_api(const char* value) { return !(value && std::string_view(value) == "disabled"); }

struct SandboxService::Impl {
  struct Entry {
    Entry(std::string id, const SandboxEnvironment& env) : sandbox(std::move(id), env) {}
    FifoLock lock;
    Sandbox sandbox;
    int users = 0;  // calls holding or waiting for `lock` (guarded by Impl::mu)
    std::uint64_t last_use = 0;
  };

  Impl(SandboxStore& store, const Clock& clock, const BindingSet& bindings,
       SandboxServiceOptions opts)
      : env{store, clock, bindings, opts.sandbox}, options(opts) {
    if (opts.metrics != nullptr) {
      env.workspace_bytes_written = &opts.metrics->counter(
          "sandbox_workspace_bytes_written_total",
          "Bytes of /workspace file contents written to storage (executions and the files API)");
      env.lease_takeovers = &lease_takeover_counter(*opts.metrics, "sandbox");
    }
  }

  // Runs `fn(sandbox)` under the id's lock.
  template <typename Fn>
  auto with_sandbox(const std::string& id, Fn&& fn) {
    std::shared_ptr<Entry> entry;
    {
      MutexLock lock(mu);
      auto& slot = entries[id];
      if (!slot) slot = std::make_shared<Entry>(id, env);
      entry = slot;
      ++entry->users;
    }
    struct Release {
      Impl& impl;
      std::shared_ptr<Entry>& entry;
      ~Release() {
        MutexLock lock(impl.mu);
        --entry->users;
        entry->last_use = ++impl.use_counter;
        impl.evict_idle();
      }
    } release{*this, entry};
    std::lock_guard id_lock(entry->lock);
    return fn(entry->sandbox);
  }

  // Drops least recently used idle actors above the cap.
  void evict_idle() SANDBOX_REQUIRES(mu) {
    while (entries.size() > options.max_cached_sandboxes) {
      auto victim = entries.end();
      for (auto it = entries.begin(); it != entries.end(); ++it) {
        if (it->second->users != 0) continue;
        if (victim == entries.end() || it->second->last_use < victim->second->last_use) {
          victim = it;
        }
      }
      if (victim == entries.end()) return;
      entries.erase(victim);
    }
  }

  SandboxEnvironment env;
  SandboxServiceOptions options;
  mutable Mutex mu;
  std::unordered_map<std::string, std::shared_ptr<Entry>> entries SANDBOX_GUARDED_BY(mu);
  std::uint64_t use_counter SANDBOX_GUARDED_BY(mu) = 0;
  // Sandbox ids whose alarm is due but whose lease another node holds: not before (clock ms).
  std::unordered_map<std::string, std::int64_t> deferred SANDBOX_GUARDED_BY(mu);

  // Background expiry.
  std::mutex timer_mu;
  std::condition_variable timer_cv;
  bool stopping = false;
  std::thread timer;
};

SandboxService::SandboxService(SandboxStore& store, const Clock& clock, const BindingSet& bindings,
                               SandboxServiceOptions options)
    : impl_(std::make_unique<Impl>(store, clock, bindings, options)) {
  if (options.background_expiry) {
    impl_->timer = std::thread([this] {
      Impl& d = *impl_;
      std::unique_lock lock(d.timer_mu);
      while (!d.stopping) {
        const std::int64_t poll_ms = std::max<std::int64_t>(d.options.expiry_poll_ms, 1);
        std::int64_t wait_ms = poll_ms;
        try {
          if (const auto next = next_alarm()) {
            wait_ms = std::clamp<std::int64_t>(*next - d.env.clock.now_ms(), 0, poll_ms);
          }
        } catch (const std::exception&) {
        }
        if (d.timer_cv.wait_for(lock, std::chrono::milliseconds(wait_ms),
                                [&] { return d.stopping; })) {
          break;
        }
        lock.unlock();
        try {
          run_due_alarms();
        } catch (const std::exception&) {
        }
        lock.lock();
      }
    });
  }
}

SandboxService::~SandboxService() {
  if (impl_->timer.joinable()) {
    {
      std::lock_guard lock(impl_->timer_mu);
      impl_->stopping = true;
    }
    impl_->timer_cv.notify_all();
    impl_->timer.join();
  }
}

HttpResponse SandboxService::handle(const std::string& sandbox_id, const std::string& method,
                                    const std::string& path, const std::string& body,
                                    const OutputObserver& on_output) {
  try {
    validate_sandbox_id(sandbox_id);
  } catch (const std::invalid_argument& e) {
    return error_json(
        ApiError(ErrorKind::kBadRequest, e.what()).to_response(impl_->env.clock.now_ms()));
  }
  return impl_->with_sandbox(
      sandbox_id, [&](Sandbox& sandbox) { return sandbox.handle(method, path, body, on_output); });
}

int SandboxService::run_due_alarms() {
  const std::int64_t now = impl_->env.clock.now_ms();
  int destroyed = 0;
  for (const auto& [id, deadline] : impl_->env.store.list_alarms()) {
    if (deadline > now) continue;
    {
      MutexLock lock(impl_->mu);
      const auto it = impl_->deferred.find(id);
      if (it != impl_->deferred.end()) {
        if (it->second > now) continue;
        impl_->deferred.erase(it);
      }
    }
    try {
      if (impl_->with_sandbox(id, [](Sandbox& sandbox) { return sandbox.run_alarm(); })) {
        ++destroyed;
      }
    } catch (const LeaseHeldError& e) {
      // Another node's sandbox: its owner expires it, or this node once that lease runs out.
      MutexLock lock(impl_->mu);
      impl_->deferred[id] = now + std::max<std::int64_t>(e.remaining_ms(), 100);
    }
  }
  return destroyed;
}

std::optional<std::int64_t> SandboxService::next_alarm() const {
  const auto alarms = impl_->env.store.list_alarms();
  MutexLock lock(impl_->mu);
  std::optional<std::int64_t> next;
  for (const auto& [id, deadline] : alarms) {
    std::int64_t at = deadline;
    if (const auto it = impl_->deferred.find(id); it != impl_->deferred.end()) {
      at = std::max(at, it->second);
    }
    if (!next || at < *next) next = at;
  }
  return next;
}

const BindingSet& SandboxService::bindings() const { return impl_->env.bindings; }
const SandboxOptions& SandboxService::options() const { return impl_->env.options; }

std::size_t SandboxService::cached_sandboxes() const {
  MutexLock lock(impl_->mu);
  return impl_->entries.size();
}

}  // namespace sandbox

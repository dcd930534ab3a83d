#include "wasm/watchdog.h"

#include <algorithm>
#include <atomic>
#include <mutex>

#include <signal.h>

#include "wasm/runtime.h"

namespace sandbox::wasm {

Watchdog::Impl::Impl() : thread_([this] { loop(); }) {}

Watchdog::Impl::~Impl() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

std::uint64_t Watchdog::Impl::arm(Clock::time_point deadline) {
  std::uint64_t serial = sandbox_wasm_next_serial();
  bool sooner;
  {
    std::lock_guard lock(mu_);
    entries_.push_back(Entry{serial, deadline, pthread_self()});
    sooner = deadline < wake_at_;
    if (sooner) wake_at_ = deadline;  // the thread is told; later arms need not tell it again
  }
  if (sooner) cv_.notify_one();
  return serial;
}

void Watchdog::Impl::disarm(std::uint64_t serial) {
  std::lock_guard lock(mu_);
  std::erase_if(entries_, [&](const Entry& e) { return e.serial == serial; });
}

void Watchdog::Impl::loop() {
  const int signal = sandbox_wasm_interrupt_signal();
  std::unique_lock lock(mu_);
  while (!stop_) {
    if (entries_.empty()) {
      wake_at_ = Clock::time_point::max();
      cv_.wait(lock);
      continue;
    }
    auto next = std::min_element(entries_.begin(), entries_.end(),
                                 [](const Entry& a, const Entry& b) { return a.fire < b.fire; });
    Clock::time_point now = Clock::now();
    if (next->fire > now) {
      wake_at_ = next->fire;  // entries_ may change while we wait
      cv_.wait_until(lock, wake_at_);
      continue;
    }
    wake_at_ = now;  // awake: an arm() meanwhile is seen by the next round
    for (Entry& e : entries_) {
      if (e.fire > now) continue;
      union sigval value;
      value.sival_ptr = reinterpret_cast<void*>(static_cast<std::uintptr_t>(e.serial));
      if (pthread_sigqueue(e.thread, signal, value) == 0) sent.fetch_add(1);
      e.fire = now + kRepeat;
    }
  }
}

Watchdog::Watchdog() : impl_(std::make_unique<Impl>()) {}
Watchdog::~Watchdog() = default;
std::uint64_t Watchdog::signals_sent() const { return impl_->sent.load(); }

namespace {
// The process-wide watchdog: made on first use, never destroyed while guest calls may run
// (static destructors run while they may), ended only by end_process_watchdog().
std::mutex g_process_watchdog_mu;  // guards the making and the ending
std::atomic<Watchdog*> g_process_watchdog{nullptr};
}  // namespace

Watchdog& process_watchdog() {
  if (Watchdog* w = g_process_watchdog.load(std::memory_order_acquire)) return *w;
  const std::lock_guard lock(g_process_watchdog_mu);
  Watchdog* w = g_process_watchdog.load(std::memory_order_relaxed);
  if (w == nullptr) {
    w = new Watchdog();
    g_process_watchdog.store(w, std::memory_order_release);
  }
  return *w;
}

void end_process_watchdog() {
  const std::lock_guard lock(g_process_watchdog_mu);
  delete g_process_watchdog.exchange(nullptr, std::memory_order_acq_rel);  // joins its thread
}

}  // namespace sandbox::wasm

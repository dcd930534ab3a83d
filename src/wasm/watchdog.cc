#include "wasm/watchdog.h"

#include <algorithm>

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

Watchdog& process_watchdog() {
  static Watchdog* watchdog = new Watchdog();
  return *watchdog;
}

}  // namespace sandbox::wasm

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
  bool earliest;
  {
    std::lock_guard lock(mu_);
    earliest = std::all_of(entries_.begin(), entries_.end(),
                           [&](const Entry& e) { return deadline < e.fire; });
    entries_.push_back(Entry{serial, deadline, pthread_self()});
  }
  if (earliest) cv_.notify_one();
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
      cv_.wait(lock);
      continue;
    }
    auto next = std::min_element(entries_.begin(), entries_.end(),
                                 [](const Entry& a, const Entry& b) { return a.fire < b.fire; });
    Clock::time_point now = Clock::now();
    if (next->fire > now) {
      Clock::time_point fire = next->fire;  // entries_ may change while we wait
      cv_.wait_until(lock, fire);
      continue;
    }
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

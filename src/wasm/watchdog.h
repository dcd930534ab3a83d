// The deadline watchdog (sandbox::wasm::Watchdog's implementation): one thread that sends the
// interrupt signal to threads whose guest call passed its deadline.
//
// arm() registers (deadline, calling thread) and returns a serial; the guest frame carries the
// serial, so a signal that arrives after the call returned is recognised and ignored. Once
// due, an entry is signalled again every kRepeat until disarm(), which covers a guest that was
// inside an import when the first signal came (runtime.h, invariant 3). Signals are only sent
// under the mutex that disarm() takes, so a thread is never signalled after disarm() returned.
//
// arm() wakes the thread only for a deadline earlier than the time it will wake anyway: calls
// with the usual timeout arm deadlines later than every earlier one, so the thread sleeps until
// the oldest of them and then on to the next, instead of waking (two context switches, tens of
// microseconds on a small virtual machine) for every guest call.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include <pthread.h>

#include <sandbox/wasm/watchdog.h>

namespace sandbox::wasm {

struct Watchdog::Impl {
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kRepeat{5};

  Impl();
  ~Impl();
  // Arms a deadline for the calling thread; returns its serial (never 0).
  std::uint64_t arm(Clock::time_point deadline);
  void disarm(std::uint64_t serial);

  std::atomic<std::uint64_t> sent{0};

 private:
  struct Entry {
    std::uint64_t serial;
    Clock::time_point fire;
    pthread_t thread;
  };
  void loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Entry> entries_;
  // When the thread wakes by itself next: the deadline it sleeps until, max() while it waits
  // for an entry. Guarded by mu_.
  Clock::time_point wake_at_ = Clock::time_point::max();
  bool stop_ = false;
  std::thread thread_;
};

// The watchdog instances use when InstanceOptions::watchdog is null (started on first use,
// never destroyed: guest calls may still run while static destructors do).
Watchdog& process_watchdog();

// Ends the process-wide watchdog and joins its thread; the next guest call with a deadline
// starts a new one. Only for a process that runs no guest call at that moment and will fork
// next: the zygote, after booting engines to capture their images, so that it forks its workers
// single-threaded (a forked child would hold a watchdog whose thread did not follow it).
void end_process_watchdog();

}  // namespace sandbox::wasm

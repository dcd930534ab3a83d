// Watchdog: the timer thread that enforces guest call deadlines (Instance::set_call_timeout,
// set_deadline; instance.h). When a deadline passes it signals the thread running the call; the
// guest traps with kDeadline as soon as it is executing Wasm code (an import in progress
// finishes first), and the signal is repeated every few milliseconds until the call has left
// the guest.
//
// Thread-safety: all methods may be called from any thread; a watchdog must outlive every
// instance that uses it.
#pragma once

#include <cstdint>
#include <memory>

namespace sandbox::wasm {

// One timer thread that interrupts guest calls whose deadline passed. Thread-safe; must outlive
// every instance that uses it. Instances without an explicit watchdog share a process-wide one
// started on first use (signals are a process-wide resource; this is the one exception to "no
// singletons").
class Watchdog {
 public:
  Watchdog();
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  // Number of deadline signals sent so far (for tests and metrics).
  std::uint64_t signals_sent() const;

 private:
  friend class Instance;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sandbox::wasm

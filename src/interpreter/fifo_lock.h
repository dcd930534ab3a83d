// FifoLock: a mutex that admits waiters strictly in arrival order (a ticket lock). One per
// interpreter key or sandbox id: calls on the key run one at a time, first come first served,
// each on its caller's thread.
//
// Thread-safety: all methods may be called from any thread. Not recursive.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace sandbox {

class FifoLock {
 public:
  void lock() {
    std::unique_lock guard(mu_);
    const std::uint64_t ticket = next_ticket_++;
    cv_.wait(guard, [&] { return serving_ == ticket; });
  }

  // Takes the lock only if nobody holds it or waits for it.
  bool try_lock() {
    std::lock_guard guard(mu_);
    if (serving_ != next_ticket_) return false;
    ++next_ticket_;
    return true;
  }

  void unlock() {
    {
      std::lock_guard guard(mu_);
      ++serving_;
    }
    cv_.notify_all();
  }

  // True when nobody holds or waits for the lock (a hint: it may change at once).
  bool idle() const {
    std::lock_guard guard(mu_);
    return serving_ == next_ticket_;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::uint64_t next_ticket_ = 0;
  std::uint64_t serving_ = 0;
};

}  // namespace sandbox

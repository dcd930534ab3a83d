// Mutex and MutexLock: std::mutex and a scoped lock of it that carry Clang's thread-safety
// attributes (base/thread_annotations.h), so that members declared SANDBOX_GUARDED_BY(mu_) are
// checked by -Wthread-safety; libstdc++'s std::mutex and std::lock_guard carry none. They cost
// nothing over the standard types: inline forwards to std::mutex and std::unique_lock.
//
//   mutable Mutex mu_;
//   int count_ SANDBOX_GUARDED_BY(mu_) = 0;
//   ...
//   MutexLock lock(mu_);
//   while (count_ == 0) lock.wait(cv_);  // not cv_.wait(lock, pred): see wait()
//
// Thread-safety: Mutex as std::mutex. A MutexLock belongs to the thread that made it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "base/thread_annotations.h"

namespace sandbox {

class SANDBOX_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void lock() SANDBOX_ACQUIRE() { mu_.lock(); }
  void unlock() SANDBOX_RELEASE() { mu_.unlock(); }

 private:
  friend class MutexLock;
  std::mutex mu_;
};

// Holds a Mutex from construction to destruction, like std::lock_guard; and, like
// std::unique_lock, may let it go for a while and waits on a std::condition_variable with it.
class SANDBOX_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) SANDBOX_ACQUIRE(mu) : lock_(mu.mu_) {}
  ~MutexLock() SANDBOX_RELEASE() = default;
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  // Releases the mutex before the scope ends (for a call that must not hold it), and takes it
  // again; the destructor releases it only if held.
  void unlock() SANDBOX_RELEASE() { lock_.unlock(); }
  void lock() SANDBOX_ACQUIRE() { lock_.lock(); }

  // Releases the mutex, blocks until `cv` is notified (or wakes spuriously), and takes the mutex
  // again before it returns. There is no predicate overload on purpose: the analysis checks a
  // lambda as a function of its own, which does not hold the mutex, so the caller writes the
  // loop (`while (!ready_) lock.wait(cv_);`) where the guarded reads are checked.
  void wait(std::condition_variable& cv) { cv.wait(lock_); }
  // As wait(), returning std::cv_status::timeout once `deadline` has passed.
  template <class Clock, class Duration>
  std::cv_status wait_until(std::condition_variable& cv,
                            const std::chrono::time_point<Clock, Duration>& deadline) {
    return cv.wait_until(lock_, deadline);
  }

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace sandbox

// WorkerPool: a fixed set of threads, with a chosen stack size, that run blocking jobs in FIFO
// order. Engine work runs here rather than on I/O threads; guest code compiled with wasm2c uses
// the worker thread's own stack as its native stack, which is why the stack size is explicit.
//
// Jobs are FIFO; idle threads are LIFO: a job goes to the thread that became idle last, whose
// stack and thread-local buffers (a zstd context, a chunk buffer) are still mapped and warm. With
// a condition variable shared by all, requests one after another went to each of the threads in
// turn, and each found its memory cold: a page fault per 4 KiB page first touched
// (docs/snapshot-format.md#recycled-buffers).
//
// Admission: try_submit() refuses a job when `max_queued` jobs already wait (the HTTP server
// answers 503 instead of queueing without bound); submit() never refuses (for a job admitted
// earlier, e.g. one that waited behind its serial key). A job marked long-running starts only
// while fewer than `max_long_running` long-running jobs run; a short job behind it in the queue
// is not held up by it, so `threads - max_long_running` workers stay free for short jobs.
//
// Thread-safety: submit() and try_submit() may be called from any thread, including from a job.
// The destructor stops accepting jobs, runs the ones already queued, and joins the threads.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <vector>

#include <pthread.h>

#include "base/mutex.h"
#include "base/thread_annotations.h"

namespace sandbox {

class WorkerPool {
 public:
  // A type-erased, move-only job.
  class Job {
   public:
    virtual ~Job() = default;
    virtual void run() = 0;
  };

  // `max_long_running` is clamped to [1, threads]; `max_queued` 0 means unbounded.
  WorkerPool(int threads, std::size_t stack_bytes, std::size_t max_queued = 0,
             int max_long_running = 0);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues `job` (never refused).
  void submit(std::unique_ptr<Job> job, bool long_running = false);
  // Queues `job` unless `max_queued` jobs wait already; false (and `job` destroyed) then.
  bool try_submit(std::unique_ptr<Job> job, bool long_running = false);

  template <class F>
  static std::unique_ptr<Job> make_job(F&& f) {
    struct FnJob final : Job {
      explicit FnJob(F&& fn) : fn_(std::forward<F>(fn)) {}
      void run() override { fn_(); }
      std::decay_t<F> fn_;
    };
    return std::make_unique<FnJob>(std::forward<F>(f));
  }

  template <class F>
  void submit_fn(F&& f) {
    submit(make_job(std::forward<F>(f)));
  }

  // Jobs waiting for a thread now.
  std::size_t queued() const SANDBOX_EXCLUDES(mu_);
  // Threads waiting for a job now.
  std::size_t idle_threads() const SANDBOX_EXCLUDES(mu_);

 private:
  struct Queued {
    std::unique_ptr<Job> job;
    bool long_running = false;
  };
  // A thread's place to wait for a job; owned by the pool, so that it outlives every call that
  // may still notify it (a wake is sent after mu_ is released: see wake_one()).
  struct Waiter {
    WorkerPool* pool = nullptr;
    std::condition_variable cv;  // with mu_
    bool woken = false;          // guarded by mu_: taken off idle_ to look at the queue
  };

  static void* thread_main(void* waiter);
  void loop(Waiter& self);
  // The first queued job that may start now, or queue_.end().
  std::deque<Queued>::iterator next_runnable() SANDBOX_REQUIRES(mu_);
  // Takes the thread that became idle last off idle_ and marks it woken (a job was queued, or
  // may start now); the caller notifies it once mu_ is released. Null when none is idle.
  Waiter* wake_one() SANDBOX_REQUIRES(mu_);
  // Wakes every idle thread.
  void wake_all() SANDBOX_REQUIRES(mu_);
  // Sets stopping_ and wakes every idle thread.
  void stop() SANDBOX_EXCLUDES(mu_);

  mutable Mutex mu_;
  std::deque<Queued> queue_ SANDBOX_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Waiter>> waiters_;       // one per thread, made before them
  std::vector<Waiter*> idle_ SANDBOX_GUARDED_BY(mu_);  // the one idle last at the back
  std::size_t max_queued_ = 0;
  int max_long_running_ = 1;
  int long_running_ SANDBOX_GUARDED_BY(mu_) = 0;  // long-running jobs running now
  bool stopping_ SANDBOX_GUARDED_BY(mu_) = false;
  std::vector<pthread_t> threads_;
};

}  // namespace sandbox

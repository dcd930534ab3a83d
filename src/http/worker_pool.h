// WorkerPool: a fixed set of threads, with a chosen stack size, that run blocking jobs in FIFO
// order. Engine work runs here rather than on I/O threads; guest code compiled with wasm2c uses
// the worker thread's own stack as its native stack, which is why the stack size is explicit.
//
// Thread-safety: submit() may be called from any thread. The destructor stops accepting jobs,
// runs the ones already queued, and joins the threads.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <vector>

namespace sandbox {

class WorkerPool {
 public:
  // A type-erased, move-only job.
  class Job {
   public:
    virtual ~Job() = default;
    virtual void run() = 0;
  };

  WorkerPool(int threads, std::size_t stack_bytes);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void submit(std::unique_ptr<Job> job);

  template <class F>
  void submit_fn(F&& f) {
    struct FnJob final : Job {
      explicit FnJob(F&& fn) : fn_(std::forward<F>(fn)) {}
      void run() override { fn_(); }
      std::decay_t<F> fn_;
    };
    submit(std::make_unique<FnJob>(std::forward<F>(f)));
  }

 private:
  static void* thread_main(void* self);
  void loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<Job>> queue_;
  bool stopping_ = false;
  std::vector<pthread_t> threads_;
};

}  // namespace sandbox

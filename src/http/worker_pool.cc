#include "http/worker_pool.h"

#include <stdexcept>
#include <string>

namespace sandbox {

WorkerPool::WorkerPool(int threads, std::size_t stack_bytes) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack_bytes);
  for (int i = 0; i < threads; ++i) {
    pthread_t t;
    const int rc = pthread_create(&t, &attr, &WorkerPool::thread_main, this);
    if (rc != 0) {
      pthread_attr_destroy(&attr);
      {
        std::lock_guard lock(mu_);
        stopping_ = true;
      }
      cv_.notify_all();
      for (auto th : threads_) pthread_join(th, nullptr);
      throw std::runtime_error("cannot start worker thread: error " + std::to_string(rc));
    }
    threads_.push_back(t);
  }
  pthread_attr_destroy(&attr);
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto t : threads_) pthread_join(t, nullptr);
}

void WorkerPool::submit(std::unique_ptr<Job> job) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void* WorkerPool::thread_main(void* self) {
  static_cast<WorkerPool*>(self)->loop();
  return nullptr;
}

void WorkerPool::loop() {
  for (;;) {
    std::unique_ptr<Job> job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to run
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job->run();
  }
}

}  // namespace sandbox

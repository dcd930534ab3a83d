#include "http/worker_pool.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace sandbox {

WorkerPool::WorkerPool(int threads, std::size_t stack_bytes, std::size_t max_queued,
                       int max_long_running)
    : max_queued_(max_queued),
      max_long_running_(
          std::clamp(max_long_running <= 0 ? threads : max_long_running, 1, std::max(threads, 1))) {
  {
    MutexLock lock(mu_);
    idle_.reserve(static_cast<std::size_t>(std::max(threads, 0)));  // loop() never allocates
  }
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack_bytes);
  for (int i = 0; i < threads; ++i) {
    waiters_.push_back(std::make_unique<Waiter>());
    waiters_.back()->pool = this;
  }
  for (int i = 0; i < threads; ++i) {
    pthread_t t;
    const int rc = pthread_create(&t, &attr, &WorkerPool::thread_main, waiters_[i].get());
    if (rc != 0) {
      pthread_attr_destroy(&attr);
      stop();
      for (auto th : threads_) pthread_join(th, nullptr);
      throw std::runtime_error("cannot start worker thread: error " + std::to_string(rc));
    }
    threads_.push_back(t);
  }
  pthread_attr_destroy(&attr);
}

WorkerPool::~WorkerPool() {
  stop();
  for (auto t : threads_) pthread_join(t, nullptr);
}

void WorkerPool::stop() {
  MutexLock lock(mu_);
  stopping_ = true;
  wake_all();
}

void WorkerPool::wake_all() {
  for (Waiter* waiter : idle_) {
    waiter->woken = true;
    waiter->cv.notify_one();  // under mu_: only when stopping, where a switch more is nothing
  }
  idle_.clear();
}

WorkerPool::Waiter* WorkerPool::wake_one() {
  if (idle_.empty()) return nullptr;
  Waiter* waiter = idle_.back();
  idle_.pop_back();
  waiter->woken = true;
  return waiter;
}

void WorkerPool::submit(std::unique_ptr<Job> job, bool long_running) {
  Waiter* woken = nullptr;
  {
    MutexLock lock(mu_);
    queue_.push_back(Queued{std::move(job), long_running});
    // One job, one worker: waking every idle worker for it costs each of them a futex wake and
    // two context switches for nothing. A job none can start now (a long-running one over
    // max_long_running) cannot be started by any other worker either; the thread that ends a
    // long job takes it (loop()).
    woken = wake_one();
  }
  // Notified after mu_ is released: a thread woken under it, on this CPU, ran at once, found
  // mu_ held, and slept again until it was released (two context switches more per job). The
  // Waiter is the pool's, so it is still there even if its thread has run and ended meanwhile.
  if (woken != nullptr) woken->cv.notify_one();
}

bool WorkerPool::try_submit(std::unique_ptr<Job> job, bool long_running) {
  Waiter* woken = nullptr;
  {
    MutexLock lock(mu_);
    if (max_queued_ != 0 && queue_.size() >= max_queued_) return false;
    queue_.push_back(Queued{std::move(job), long_running});
    woken = wake_one();  // as in submit()
  }
  if (woken != nullptr) woken->cv.notify_one();
  return true;
}

std::size_t WorkerPool::queued() const {
  MutexLock lock(mu_);
  return queue_.size();
}

std::size_t WorkerPool::idle_threads() const {
  MutexLock lock(mu_);
  return idle_.size();
}

void* WorkerPool::thread_main(void* waiter) {
  auto& self = *static_cast<Waiter*>(waiter);
  self.pool->loop(self);
  return nullptr;
}

std::deque<WorkerPool::Queued>::iterator WorkerPool::next_runnable() {
  if (long_running_ < max_long_running_) return queue_.begin();
  return std::find_if(queue_.begin(), queue_.end(),
                      [](const Queued& q) { return !q.long_running; });
}

void WorkerPool::loop(Waiter& self) {
  for (;;) {
    Queued next;
    {
      MutexLock lock(mu_);
      // Stopping: run what is queued (a long job waits for a running one to finish).
      while (!(stopping_ && queue_.empty()) && next_runnable() == queue_.end()) {
        self.woken = false;
        idle_.push_back(&self);
        while (!self.woken) lock.wait(self.cv);  // taken off idle_ by whoever set it
      }
      const auto it = next_runnable();
      if (it == queue_.end()) {
        // Stopping, and nothing left to run. Threads that went idle while stopping, behind a
        // long job they could not start, may exit too.
        wake_all();
        return;
      }
      next = std::move(*it);
      queue_.erase(it);
      if (next.long_running) ++long_running_;
    }
    next.job->run();
    next.job.reset();
    if (next.long_running) {
      MutexLock lock(mu_);
      --long_running_;
      // A long job held back by max_long_running may start now: this thread takes it itself at
      // the top of the loop, no other needs waking.
    }
  }
}

}  // namespace sandbox

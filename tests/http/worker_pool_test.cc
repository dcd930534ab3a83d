// WorkerPool (src/http/worker_pool.h): jobs run in FIFO order on threads taken LIFO, so jobs one
// after another run on the thread that was idle last (its stack and thread-local buffers are
// warm); every queued job runs, from any number of submitting threads; the destructor ends every
// thread, also those that went idle behind a long job they could not start. A job wakes its
// thread without the thread then waiting for the pool's lock (counted in context switches).
#include "http/worker_pool.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include "support/cpu_sets.h"
#include "support/proc_memory.h"

namespace sandbox {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kStack = std::size_t{256} * 1024;

// Waits (up to 10 s) until `pool` has `n` idle threads.
bool wait_idle(const WorkerPool& pool, std::size_t n) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (pool.idle_threads() != n) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(WorkerPool, JobsOneAfterAnotherRunOnTheThreadIdleLast) {
  constexpr int kThreads = 4;
  WorkerPool pool(kThreads, kStack);
  std::mutex mu;
  std::condition_variable cv;
  std::vector<pthread_t> ran;
  for (int round = 0; round < 20; ++round) {
    ASSERT_TRUE(wait_idle(pool, kThreads)) << "round " << round;
    pool.submit_fn([&] {
      const std::lock_guard lock(mu);
      ran.push_back(pthread_self());
      cv.notify_all();
    });
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 10s, [&] { return ran.size() == std::size_t(round) + 1; }));
  }
  // With every thread idle before each job, the one idle last is the one that ran the job
  // before: one thread ran them all (taken in turn, each of the 4 would have run some).
  for (const pthread_t thread : ran) EXPECT_TRUE(pthread_equal(thread, ran.front()));
}

TEST(WorkerPool, EveryJobRunsOnceInFifoOrderPerSubmitter) {
  constexpr int kSubmitters = 4;
  constexpr int kJobs = 500;
  std::vector<std::vector<int>> seen(kSubmitters);
  std::mutex mu;
  {
    WorkerPool pool(1, kStack);  // one thread: the order it runs them in is the queue's
    std::vector<std::thread> submitters;
    for (int s = 0; s < kSubmitters; ++s) {
      submitters.emplace_back([&, s] {
        for (int j = 0; j < kJobs; ++j) {
          pool.submit_fn([&, s, j] {
            const std::lock_guard lock(mu);
            seen[s].push_back(j);
          });
        }
      });
    }
    for (auto& t : submitters) t.join();
  }  // the destructor runs what is queued
  for (int s = 0; s < kSubmitters; ++s) {
    ASSERT_EQ(seen[s].size(), std::size_t{kJobs});
    for (int j = 0; j < kJobs; ++j) EXPECT_EQ(seen[s][j], j);
  }
}

TEST(WorkerPool, ManyThreadsRunManyJobsFromManySubmitters) {
  std::atomic<int> done{0};
  {
    WorkerPool pool(8, kStack, 0, 2);
    std::vector<std::thread> submitters;
    for (int s = 0; s < 4; ++s) {
      submitters.emplace_back([&, s] {
        for (int j = 0; j < 300; ++j) {
          pool.submit(WorkerPool::make_job([&] { ++done; }), /*long_running=*/(j + s) % 3 == 0);
        }
      });
    }
    for (auto& t : submitters) t.join();
  }
  EXPECT_EQ(done.load(), 1200);
}

// Regression: threads that went idle while stopping, behind long jobs over max_long_running,
// were woken by nothing once the last long job had started, and the destructor waited for them
// for ever.
TEST(WorkerPool, StoppingWithLongJobsQueuedBehindTheLimitEndsEveryThread) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    std::atomic<int> ran{0};
    {
      WorkerPool pool(3, kStack, 0, /*max_long_running=*/1);
      for (int j = 0; j < 4; ++j) {
        pool.submit(WorkerPool::make_job([&] {
                      std::this_thread::sleep_for(2ms);
                      ++ran;
                    }),
                    /*long_running=*/true);
      }
    }  // returns only once every thread has ended
    EXPECT_EQ(ran.load(), 4);
  }
}

// The pool's thread sleeps once per job, in its wait for the job. When the submitter woke it
// with the pool's lock still held, the woken thread ran at once on the submitter's CPU, found
// the lock taken and slept a second time until the submitter let go of it: two context switches
// more for every request the server handles. All on one CPU here, where that always happened.
TEST(WorkerPool, AWokenThreadDoesNotWaitForTheSubmittersLock) {
  cpu_set_t before_test;
  ASSERT_EQ(sched_getaffinity(0, sizeof before_test, &before_test), 0);
  const cpu_set_t one = testing_support::first_cpu_of(before_test);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);  // the pool's thread inherits it
  constexpr int kJobs = 200;
  long switches = 0;
  {
    WorkerPool pool(1, kStack);
    std::atomic<int> done{0};
    long last = -1;
    for (int job = 0; job < kJobs; ++job) {
      ASSERT_TRUE(wait_idle(pool, 1)) << "job " << job;
      pool.submit_fn([&] {
        const long now = testing_support::thread_voluntary_switches();
        if (last >= 0) switches += now - last;
        last = now;
        done.store(done.load() + 1, std::memory_order_release);
      });
      while (done.load(std::memory_order_acquire) != job + 1) std::this_thread::yield();
    }
  }
  ASSERT_EQ(sched_setaffinity(0, sizeof before_test, &before_test), 0);
  // Between two jobs: the wait for the next one (the submitter waits until the thread is idle).
  // A quarter more leaves room for a rare preemption inside a locked section; waiting for the
  // submitter's lock doubled the count (2 switches between any two jobs).
  EXPECT_LE(switches, (kJobs - 1) * 5 / 4)
      << "voluntary context switches of the pool's thread between " << kJobs << " jobs";
}

}  // namespace
}  // namespace sandbox

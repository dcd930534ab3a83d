// Admission (src/http/admission.h) without any socket: a real WorkerPool with small bounds, and
// jobs that block until the test releases them, so every outcome is decided by the order of the
// test's own steps (the waits' 10 s timeouts only turn a hang into a failure). Serial keys run
// one job at a time in arrival order, a parked job goes to the pool when its key's job calls
// key_done(), and the two refusals answer with their envelope and are counted.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <sandbox/http.h>
#include <sandbox/metrics.h>

#include "http/admission.h"
#include "http/metrics_http.h"
#include "http/worker_pool.h"

namespace sandbox {
namespace {

constexpr auto kHang = std::chrono::seconds(10);

// The jobs of a test and what they did. A job records that it started, waits until released,
// and, with a serial key, ends with key_done() as HttpServer's jobs do; it counts as done once
// key_done() has returned.
class Jobs {
 public:
  void use(Admission& admission) { admission_ = &admission; }

  std::unique_ptr<WorkerPool::Job> job(int id, const std::string& key = "") {
    return WorkerPool::make_job([this, id, key] { run(id, key); });
  }

  // Admits job `id` of `key` (long_running false).
  std::optional<HttpResponse> admit(int id, const std::string& key = "") {
    return admission_->admit(job(id, key), key, false);
  }

  bool wait_started(int id) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kHang, [&] { return started_set_.count(id) > 0; });
  }
  bool wait_done(int id) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kHang, [&] { return done_.count(id) > 0; });
  }
  void release(int id) {
    std::lock_guard lock(mu_);
    released_.insert(id);
    cv_.notify_all();
  }
  void release_all() {
    std::lock_guard lock(mu_);
    all_released_ = true;
    cv_.notify_all();
  }
  // The jobs that started, in the order they did.
  std::vector<int> started() {
    std::lock_guard lock(mu_);
    return started_;
  }
  // The most jobs of `key` that ran at once.
  int most_at_once(const std::string& key) {
    std::lock_guard lock(mu_);
    return most_at_once_[key];
  }

 private:
  void run(int id, const std::string& key) {
    {
      std::unique_lock lock(mu_);
      started_.push_back(id);
      started_set_.insert(id);
      most_at_once_[key] = std::max(most_at_once_[key], ++running_[key]);
      cv_.notify_all();
      cv_.wait(lock, [&] { return all_released_ || released_.count(id) > 0; });
      --running_[key];
    }
    if (!key.empty()) admission_->key_done(key);
    std::lock_guard lock(mu_);
    done_.insert(id);
    cv_.notify_all();
  }

  Admission* admission_ = nullptr;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<int> started_;
  std::set<int> started_set_;
  std::set<int> released_;
  std::set<int> done_;
  bool all_released_ = false;
  std::map<std::string, int> running_;
  std::map<std::string, int> most_at_once_;
};

class AdmissionUnit : public ::testing::Test {
 protected:
  // A pool of `threads` workers, at most `max_queued` waiting for one.
  void make(int threads, std::size_t max_queued, std::size_t max_waiting_per_key) {
    admission_ = std::make_unique<Admission>(
        std::make_unique<WorkerPool>(threads, std::size_t{256} * 1024, max_queued),
        max_waiting_per_key);
    admission_->register_metrics(metrics_);
    jobs_.use(*admission_);
  }
  ~AdmissionUnit() override {
    jobs_.release_all();
    admission_.reset();  // joins the pool: every job has run
  }
  std::uint64_t refusals(std::string_view limit) {
    return refusal_counter(metrics_, limit).value();
  }

  MetricsRegistry metrics_;
  Jobs jobs_;
  std::unique_ptr<Admission> admission_;
};

void expect_refusal(const std::optional<HttpResponse>& r, int status, const std::string& limit,
                    const std::string& message) {
  if (!r) {
    ADD_FAILURE() << "admitted; expected a " << status << " refusal";
    return;
  }
  EXPECT_EQ(r->status, status);
  EXPECT_EQ(r->header("retry-after").value_or(""), "1");
  const auto body = boost::json::parse(r->body).as_object();
  EXPECT_EQ(body.at("httpStatus"), status);
  EXPECT_EQ(body.at("code"), "INTERNAL_ERROR");
  EXPECT_EQ(body.at("message").as_string(), message);
  EXPECT_EQ(body.at("context").at("limit").as_string(), limit);
  EXPECT_EQ(body.at("context").at("retryAfterSeconds"), 1);
}

TEST_F(AdmissionUnit, JobsOfOneKeyRunOneAtATimeInArrivalOrder) {
  make(/*threads=*/3, /*max_queued=*/8, /*max_waiting_per_key=*/8);
  for (int id = 1; id <= 4; ++id) EXPECT_FALSE(jobs_.admit(id, "a"));
  ASSERT_TRUE(jobs_.wait_started(1));
  // Two workers are idle, yet the others wait behind job 1, without a worker.
  EXPECT_EQ(admission_->parked(), 3u);
  EXPECT_EQ(admission_->queued(), 0u);
  for (int id = 1; id <= 3; ++id) {
    EXPECT_EQ(jobs_.started().size(), static_cast<std::size_t>(id));
    jobs_.release(id);  // its key_done() hands the next one to the pool
    ASSERT_TRUE(jobs_.wait_started(id + 1));
    EXPECT_EQ(admission_->parked(), static_cast<std::size_t>(3 - id));
  }
  jobs_.release(4);
  ASSERT_TRUE(jobs_.wait_done(4));
  EXPECT_EQ(jobs_.started(), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(jobs_.most_at_once("a"), 1);
  EXPECT_EQ(admission_->parked(), 0u);
  // The key is idle again: the next job of it goes straight to the pool.
  EXPECT_FALSE(jobs_.admit(5, "a"));
  ASSERT_TRUE(jobs_.wait_started(5));
  EXPECT_EQ(refusals("max_queued_requests") + refusals("max_waiting_per_key"), 0u);
}

TEST_F(AdmissionUnit, OtherKeysAndUnkeyedJobsDoNotWaitBehindABusyKey) {
  make(/*threads=*/3, /*max_queued=*/8, /*max_waiting_per_key=*/8);
  EXPECT_FALSE(jobs_.admit(1, "a"));
  ASSERT_TRUE(jobs_.wait_started(1));
  EXPECT_FALSE(jobs_.admit(2, "a"));
  EXPECT_FALSE(jobs_.admit(3, "b"));
  EXPECT_FALSE(jobs_.admit(4));
  // Job 1 still runs: 3 and 4 started beside it, 2 did not.
  ASSERT_TRUE(jobs_.wait_started(3));
  ASSERT_TRUE(jobs_.wait_started(4));
  EXPECT_EQ(admission_->parked(), 1u);
  const auto started = jobs_.started();
  EXPECT_EQ(std::count(started.begin(), started.end(), 2), 0);
  jobs_.release(1);
  ASSERT_TRUE(jobs_.wait_started(2));
}

TEST_F(AdmissionUnit, PastMaxWaitingPerKeyTheNextIs429AndNeverRuns) {
  make(/*threads=*/2, /*max_queued=*/8, /*max_waiting_per_key=*/2);
  EXPECT_FALSE(jobs_.admit(1, "sandbox-1"));
  ASSERT_TRUE(jobs_.wait_started(1));
  EXPECT_FALSE(jobs_.admit(2, "sandbox-1"));
  EXPECT_FALSE(jobs_.admit(3, "sandbox-1"));
  // The refused job is destroyed unrun: the token it holds is released at once.
  auto token = std::make_shared<int>(0);
  const std::weak_ptr<int> watch = token;
  auto refused = admission_->admit(
      WorkerPool::make_job([token = std::move(token)] { ADD_FAILURE() << "a refused job ran"; }),
      "sandbox-1", false);
  expect_refusal(refused, 429, "max_waiting_per_key",
                 "Too many requests are waiting for sandbox-1; retry later");
  EXPECT_TRUE(watch.expired());
  EXPECT_EQ(refusals("max_waiting_per_key"), 1u);
  EXPECT_EQ(refusals("max_queued_requests"), 0u);
  // Another key has its own bound.
  EXPECT_FALSE(jobs_.admit(4, "sandbox-2"));
  // Once the running job is done, one more may wait again.
  jobs_.release(1);
  ASSERT_TRUE(jobs_.wait_started(2));
  EXPECT_FALSE(jobs_.admit(5, "sandbox-1"));
  expect_refusal(jobs_.admit(6, "sandbox-1"), 429, "max_waiting_per_key",
                 "Too many requests are waiting for sandbox-1; retry later");
  EXPECT_EQ(refusals("max_waiting_per_key"), 2u);
  jobs_.release_all();
  ASSERT_TRUE(jobs_.wait_done(5));
  std::vector<int> of_sandbox_1 = jobs_.started();
  std::erase(of_sandbox_1, 4);
  EXPECT_EQ(of_sandbox_1, (std::vector<int>{1, 2, 3, 5}));
}

TEST_F(AdmissionUnit, AFullPoolRefusesWith503AndLeavesTheKeyIdle) {
  make(/*threads=*/1, /*max_queued=*/1, /*max_waiting_per_key=*/4);
  EXPECT_FALSE(jobs_.admit(1));
  ASSERT_TRUE(jobs_.wait_started(1));  // the one worker is taken
  EXPECT_FALSE(jobs_.admit(2));        // waits for it: the queue is full
  EXPECT_EQ(admission_->queued(), 1u);
  const std::string message =
      "The server is busy: too many requests wait for a worker; retry later";
  expect_refusal(jobs_.admit(3), 503, "max_queued_requests", message);
  // A key's first job is refused the same way, and the key is not left busy.
  expect_refusal(jobs_.admit(4, "k"), 503, "max_queued_requests", message);
  EXPECT_EQ(admission_->parked(), 0u);
  EXPECT_EQ(refusals("max_queued_requests"), 2u);
  EXPECT_EQ(refusals("max_waiting_per_key"), 0u);
  jobs_.release(1);
  ASSERT_TRUE(jobs_.wait_started(2));  // the queue is empty again
  EXPECT_FALSE(jobs_.admit(5, "k"));   // not parked behind the refused job 4
  EXPECT_EQ(admission_->parked(), 0u);
  jobs_.release(2);
  ASSERT_TRUE(jobs_.wait_started(5));
  const auto started = jobs_.started();
  EXPECT_EQ(started, (std::vector<int>{1, 2, 5}));
}

TEST_F(AdmissionUnit, AParkedJobIsNotRefusedByAFullPoolWhenItsTurnComes) {
  make(/*threads=*/1, /*max_queued=*/1, /*max_waiting_per_key=*/4);
  EXPECT_FALSE(jobs_.admit(1, "a"));
  ASSERT_TRUE(jobs_.wait_started(1));
  EXPECT_FALSE(jobs_.admit(2, "a"));  // parked
  EXPECT_FALSE(jobs_.admit(3));       // fills the queue
  EXPECT_EQ(admission_->queued(), 1u);
  // Job 1's key_done() hands job 2 to the full pool (try_submit would refuse it now) all the
  // same: it was admitted when it was parked. It runs after job 3, queued before it.
  jobs_.release(1);
  ASSERT_TRUE(jobs_.wait_done(1));
  EXPECT_EQ(admission_->parked(), 0u);
  jobs_.release_all();
  ASSERT_TRUE(jobs_.wait_done(2));
  EXPECT_EQ(jobs_.started(), (std::vector<int>{1, 3, 2}));
  EXPECT_EQ(refusals("max_queued_requests"), 0u);
}

TEST_F(AdmissionUnit, TheGaugesReportQueuedAndParkedJobs) {
  make(/*threads=*/1, /*max_queued=*/4, /*max_waiting_per_key=*/4);
  EXPECT_FALSE(jobs_.admit(1, "a"));
  ASSERT_TRUE(jobs_.wait_started(1));
  EXPECT_FALSE(jobs_.admit(2, "a"));
  EXPECT_FALSE(jobs_.admit(3, "a"));
  EXPECT_FALSE(jobs_.admit(4));
  const std::string text = metrics_.render();
  EXPECT_NE(text.find("\nsandbox_http_parked_requests 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nsandbox_http_queued_requests 1\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace sandbox

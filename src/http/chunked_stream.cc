#include "http/chunked_stream.h"

#include <boost/asio/post.hpp>

namespace sandbox {

ChunkedStream::ChunkedStream(const boost::asio::any_io_executor& strand) : signal_(strand) {
  signal_.expires_at(boost::asio::steady_timer::time_point::max());
}

void ChunkedStream::open(int status, std::vector<std::pair<std::string, std::string>> headers) {
  {
    MutexLock lock(mu_);
    if (opened_) return;
    opened_ = true;
    status_ = status;
    headers_ = std::move(headers);
  }
  wake();
}

bool ChunkedStream::is_open() const {
  MutexLock lock(mu_);
  return opened_;
}

bool ChunkedStream::write(std::string data) {
  {
    MutexLock lock(mu_);
    if (dead_) return false;
    if (!opened_ || data.empty()) return true;
    pending_ += data;
  }
  wake();
  return true;
}

void ChunkedStream::finish() {
  {
    MutexLock lock(mu_);
    finished_ = true;
  }
  wake();
}

void ChunkedStream::mark_dead() {
  MutexLock lock(mu_);
  dead_ = true;
  pending_.clear();
}

bool ChunkedStream::dead() const {
  MutexLock lock(mu_);
  return dead_;
}

ChunkedStream::Step ChunkedStream::take() {
  MutexLock lock(mu_);
  Step step;
  if (opened_ && !head_taken_) {
    head_taken_ = true;
    step.head = true;
    step.status = status_;
    step.headers = headers_;
  }
  step.data.swap(pending_);
  step.finished = finished_;
  return step;
}

void ChunkedStream::wake() {
  boost::asio::post(signal_.get_executor(),
                    [self = shared_from_this()] { self->signal_.cancel(); });
}

}  // namespace sandbox

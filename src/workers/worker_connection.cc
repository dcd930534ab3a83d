#include "workers/worker_connection.h"

#include <csignal>

#include <sandbox/isolation.h>

namespace sandbox::workers {

WorkerConnection::WorkerConnection(UniqueFd fd, pid_t pid, std::size_t max_payload_bytes,
                                   bool accept_fds, Unsolicited unsolicited, OnDeath on_death)
    : channel_(std::move(fd), max_payload_bytes),
      pid_(pid),
      accept_fds_(accept_fds),
      unsolicited_(std::move(unsolicited)),
      on_death_(std::move(on_death)) {
  reader_ = std::thread([this] { reader_main(); });
}

WorkerConnection::~WorkerConnection() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  channel_.shutdown();
  // The last owner may let go on the reader thread itself (a callback's temporary reference).
  if (reader_.get_id() == std::this_thread::get_id()) {
    reader_.detach();
  } else if (reader_.joinable()) {
    reader_.join();
  }
}

void WorkerConnection::reader_main() {
  std::string reason = "its channel closed";
  try {
    while (std::optional<Frame> frame = channel_.receive()) {
      if (!accept_fds_) frame->fds.clear();  // a worker has no business sending descriptors
      if (frame->call == 0) {
        if (unsolicited_) unsolicited_(*frame);
        continue;
      }
      std::lock_guard lock(mu_);
      const auto it = pending_.find(frame->call);
      if (it == pending_.end()) continue;  // a call that timed out
      const auto kind = static_cast<Kind>(frame->kind);
      const bool last = kind == Kind::kReply || kind == Kind::kFailure;
      auto pending = it->second;
      pending->frames.push_back(std::move(*frame));
      if (last) pending_.erase(it);
      pending->cv.notify_one();
    }
  } catch (const std::exception& e) {
    reason = std::string("it broke the protocol: ") + e.what();
    ::kill(pid_, SIGKILL);
  }
  die(reason);
}

void WorkerConnection::die(const std::string& reason) {
  bool report = false;
  {
    std::lock_guard lock(mu_);
    if (dead_) return;
    report = !closing_;
    dead_ = true;
    death_ = reason;
    for (auto& [call, pending] : pending_) {
      pending->lost = true;
      pending->cv.notify_one();
    }
    pending_.clear();
  }
  if (report && on_death_) on_death_(reason);
}

Frame WorkerConnection::call(Kind kind, const std::vector<std::string_view>& parts,
                             const Progress& progress,
                             std::chrono::steady_clock::duration timeout) {
  const std::uint64_t id = next_call_++;
  auto pending = std::make_shared<Pending>();
  {
    std::lock_guard lock(mu_);
    if (dead_) throw WorkerLostError("The worker process is gone (" + death_ + ")");
    pending_[id] = pending;
  }
  ++in_flight_;
  struct Leave {
    WorkerConnection& c;
    std::uint64_t id;
    ~Leave() {
      --c.in_flight_;
      std::lock_guard lock(c.mu_);
      c.pending_.erase(id);
    }
  } leave{*this, id};
  try {
    channel_.send_parts(static_cast<std::uint32_t>(kind), id, parts);
  } catch (const ChannelError&) {
    // The reader sees the same end and fails the other calls.
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::unique_lock lock(mu_);
    if (!pending->cv.wait_until(lock, deadline,
                                [&] { return pending->lost || !pending->frames.empty(); })) {
      lock.unlock();
      kill();
      throw WorkerLostError(
          "The worker process did not answer within " +
          std::to_string(std::chrono::duration_cast<std::chrono::seconds>(timeout).count()) +
          " s and was stopped");
    }
    if (pending->frames.empty()) {
      throw WorkerLostError("The worker process running this call died (" + death_ +
                            "); it was replaced, retry the request");
    }
    Frame frame = std::move(pending->frames.front());
    pending->frames.pop_front();
    lock.unlock();
    switch (static_cast<Kind>(frame.kind)) {
      case Kind::kReply:
        return frame;
      case Kind::kFailure: {
        Failure failure;
        try {
          Reader r(frame.payload);
          failure = read_failure(r);
          r.finish();
        } catch (const WireError& e) {
          kill();
          throw WorkerLostError(std::string("The worker process broke the protocol: ") + e.what());
        }
        throw_failure(failure);
      }
      default:
        try {
          if (progress) progress(frame);
        } catch (const WireError& e) {
          kill();
          throw WorkerLostError(std::string("The worker process broke the protocol: ") + e.what());
        }
    }
  }
}

void WorkerConnection::kill() {
  // Once dead, the zygote may have reaped the process and its pid may name another one.
  std::lock_guard lock(mu_);
  if (!dead_) ::kill(pid_, SIGKILL);
}

bool WorkerConnection::dead() const {
  std::lock_guard lock(mu_);
  return dead_;
}

}  // namespace sandbox::workers

#include "workers/worker_connection.h"

#include <algorithm>
#include <csignal>
#include <stdexcept>
#include <thread>

#include <sandbox/isolation.h>

#include "workers/lane_sockets.h"

namespace sandbox::workers {
namespace {

// How long a call whose lane closed waits for the reader thread to see the channel close too, so
// that its error can say how the process ended.
constexpr auto kDeathReasonWait = std::chrono::milliseconds(100);

// Calls on lanes in flight in this process, on every worker's connection.
std::atomic<std::size_t> lane_calls_in_flight{0};
// What answers_awaited_awake(), answers_found_awake() and lanes_woken() read.
std::atomic<std::size_t> awaited_awake{0};
std::atomic<std::size_t> found_awake{0};
std::atomic<std::size_t> woken_lanes{0};

// Whether a call that has just begun may have its thread spin for an announced answer: at most
// one such call per two CPUs in flight, so that spinning never takes a CPU that other calls need
// (executes/s with many sandboxes at once stay as they are).
std::size_t awake_calls_allowed() {
  static const std::size_t allowed =
      std::max<std::size_t>(1, std::thread::hardware_concurrency() / 2);
  return allowed;
}
bool may_stay_awake() { return lane_calls_in_flight.load() <= awake_calls_allowed(); }

std::string seconds_of(std::chrono::steady_clock::duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(d).count());
}

}  // namespace

std::size_t answers_awaited_awake() { return awaited_awake.load(); }

std::size_t answers_found_awake() { return found_awake.load(); }

std::size_t lanes_woken() { return woken_lanes.load(); }

WorkerConnection::WorkerConnection(UniqueFd fd, pid_t pid, std::size_t max_payload_bytes,
                                   bool accept_fds, bool lanes, Unsolicited unsolicited,
                                   OnDeath on_death)
    : channel_(std::move(fd), max_payload_bytes),
      pid_(pid),
      accept_fds_(accept_fds),
      use_lanes_(lanes),
      max_payload_bytes_(max_payload_bytes),
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
  std::vector<Lane> idle;
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
    idle.swap(idle_lanes_);
    death_cv_.notify_all();
  }
  for (Lane& lane : idle) close_lane(std::move(lane));
  if (report && on_death_) on_death_(reason);
}

WorkerConnection::WokenLane::WokenLane(WokenLane&& other) noexcept
    : connection_(other.connection_), lane_(std::move(other.lane_)) {
  other.connection_ = nullptr;
}

WorkerConnection::WokenLane& WorkerConnection::WokenLane::operator=(WokenLane&& other) noexcept {
  if (this != &other) {
    reset();
    connection_ = other.connection_;
    lane_ = std::move(other.lane_);
    other.connection_ = nullptr;
  }
  return *this;
}

WorkerConnection::WokenLane::~WokenLane() { reset(); }

void WorkerConnection::WokenLane::reset() {
  if (lane_) connection_->release_lane(std::move(lane_));
  connection_ = nullptr;
}

void WorkerConnection::wake(WokenLane& woken) {
  if (!use_lanes_ || lane_calls_in_flight.load() >= awake_calls_allowed()) return;
  if (!woken) {
    std::lock_guard lock(mu_);
    if (dead_ || idle_lanes_.empty()) return;
    woken.connection_ = this;
    woken.lane_ = std::move(idle_lanes_.back());
    idle_lanes_.pop_back();
  } else if (woken.connection_ != this) {
    return;  // another connection's lane: the call it precedes goes there
  }
  try {
    woken.lane_->channel.send(static_cast<std::uint32_t>(Kind::kWake), 0, {});
    ++woken_lanes;
  } catch (const ChannelError&) {
    // The process is gone, or closed the lane: the lane is of no more use.
    close_lane(std::move(woken.lane_));
    woken.connection_ = nullptr;
  }
}

Frame WorkerConnection::call(Kind kind, const std::vector<std::string_view>& parts,
                             const Progress& progress, std::chrono::steady_clock::duration timeout,
                             const std::function<void()>& while_waiting, WokenLane woken) {
  if (!use_lanes_) return call_shared(kind, parts, progress, timeout, while_waiting);
  return call_on_lane(kind, parts, nullptr, progress, timeout, while_waiting, std::move(woken));
}

Frame WorkerConnection::call_composed(Kind kind, const Compose& compose, const Progress& progress,
                                      std::chrono::steady_clock::duration timeout,
                                      const std::function<void()>& while_waiting, WokenLane woken) {
  if (!use_lanes_) return call_shared(kind, compose({}), progress, timeout, while_waiting);
  return call_on_lane(kind, {}, &compose, progress, timeout, while_waiting, std::move(woken));
}

Frame WorkerConnection::call_streamed(Kind kind, const std::vector<std::string_view>& parts,
                                      const Stream& stream, const Progress& progress,
                                      std::chrono::steady_clock::duration timeout,
                                      WokenLane woken) {
  if (!use_lanes_) throw std::logic_error("WorkerConnection::call_streamed without lanes");
  return call_on_lane(kind, parts, nullptr, progress, timeout, {}, std::move(woken), &stream);
}

WorkerConnection::Lane WorkerConnection::open_lane() {
  // The worker's two ends are closed here once sent: the worker holds the only copies.
  std::optional<LaneSockets> sockets = make_lane_sockets();
  if (!sockets) {
    throw WorkerLostError("No lane to the worker process could be made (socketpair failed)");
  }
  // The area: mapped here writable too (a call may leave bytes there for the worker), its
  // descriptor closed once sent (the mapping stays).
  const UniqueFd area_fd = LaneArea::create();
  LaneArea area(area_fd.get(), true);
  try {
    const int fds[] = {sockets->worker_calls.get(), sockets->worker_answers.get(), area_fd.get()};
    channel_.send(static_cast<std::uint32_t>(Kind::kLane), 0, {},
                  std::span<const int>(fds, area.bytes().empty() ? 2 : 3));
  } catch (const ChannelError&) {
    lane_lost();  // the channel is closed: the process is gone
  }
  ++lanes_;
  return std::make_unique<LaneEnd>(std::move(sockets->answers), std::move(sockets->calls),
                                   max_payload_bytes_, std::move(area));
}

struct WorkerConnection::LaneHold {
  WorkerConnection& connection;
  Lane lane;
  ~LaneHold() { connection.release_lane(std::move(lane)); }
};

void WorkerConnection::release_lane(Lane lane) {
  {
    std::lock_guard lock(mu_);
    if (!dead_ && idle_lanes_.size() < kMaxIdleLanes) {
      idle_lanes_.push_back(std::move(lane));
      return;
    }
  }
  close_lane(std::move(lane));
}

void WorkerConnection::close_lane(Lane lane) {
  if (!lane) return;
  lane.reset();
  --lanes_;
}

void WorkerConnection::lane_lost() {
  std::unique_lock lock(mu_);
  if (!death_cv_.wait_for(lock, kDeathReasonWait, [this] { return dead_; })) {
    // The channel is still open, so the worker closed the lane itself: it broke the protocol.
    lock.unlock();
    kill();
    lock.lock();
  }
  const std::string reason = dead_ ? death_ : "its channel closed";
  throw WorkerLostError("The worker process running this call died (" + reason +
                        "); it was replaced, retry the request");
}

Failure WorkerConnection::read_failure_frame(const Frame& frame) {
  try {
    Reader r(frame.payload);
    Failure failure = read_failure(r);
    r.finish();
    return failure;
  } catch (const WireError& e) {
    broke_protocol(e.what());
  }
}

void WorkerConnection::deliver_progress(const Progress& progress, const Frame& frame) {
  try {
    if (progress) progress(frame);
  } catch (const WireError& e) {
    broke_protocol(e.what());
  }
}

void WorkerConnection::broke_protocol(std::string_view what) {
  kill();
  throw WorkerLostError("The worker process broke the protocol: " + std::string(what));
}

void WorkerConnection::timed_out(std::chrono::steady_clock::duration timeout) {
  kill();
  throw WorkerLostError("The worker process did not answer within " + seconds_of(timeout) +
                        " s and was stopped");
}

Frame WorkerConnection::call_on_lane(Kind kind, const std::vector<std::string_view>& parts,
                                     const Compose* compose, const Progress& progress,
                                     std::chrono::steady_clock::duration timeout,
                                     const std::function<void()>& while_waiting, WokenLane woken,
                                     const Stream* stream) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  if (woken && woken.connection_ != this) {
    throw std::logic_error("WorkerConnection::call: a lane woken on another connection");
  }
  // The lane woken for this call, or an idle one.
  Lane lane = std::move(woken.lane_);
  woken.connection_ = nullptr;
  {
    std::lock_guard lock(mu_);
    if (dead_) {
      close_lane(std::move(lane));
      throw WorkerLostError("The worker process is gone (" + death_ + ")");
    }
    if (!lane && !idle_lanes_.empty()) {
      lane = std::move(idle_lanes_.back());
      idle_lanes_.pop_back();
    }
  }
  ++in_flight_;
  ++lane_calls_in_flight;
  // Until the answer is read whole, the lane may hold the rest of this call: any other end
  // closes it (the worker's lane thread then sees the end and stops).
  struct Leave {
    WorkerConnection& c;
    Lane& lane;
    ~Leave() {
      --c.in_flight_;
      --lane_calls_in_flight;
      c.close_lane(std::move(lane));
    }
  } leave{*this, lane};
  if (!lane) lane = open_lane();
  const std::uint64_t id = next_call_++;
  std::vector<std::string_view> composed;
  if (compose != nullptr) composed = (*compose)(lane->area.writable());
  // Whether this call asks the worker to announce its answer, and whether it did.
  const bool stay_awake = may_stay_awake();
  bool announced = false;
  try {
    lane->channel.send_parts(static_cast<std::uint32_t>(kind) | (stay_awake ? kAnnounceFlag : 0),
                             id, compose != nullptr ? composed : parts);
  } catch (const ChannelError&) {
    lane_lost();
  }
  if (stream != nullptr) {
    const SendMore send_more = [&](Kind more, const std::vector<std::string_view>& more_parts) {
      try {
        lane->channel.send_parts(static_cast<std::uint32_t>(more), id, more_parts);
      } catch (const ChannelError&) {
        lane_lost();
      }
    };
    (*stream)(send_more, lane->area.writable());
  } else if (while_waiting) {
    while_waiting();
  }
  // A call that may stay awake looks for its answer before it sleeps: a short call's answer then
  // needs no wake-up of this thread (docs/security.md#answers-found-awake).
  if (stay_awake && lane->channel.spin_until_readable(kAnswerSpin)) ++found_awake;
  for (;;) {
    std::optional<Frame> frame;
    try {
      frame = lane->channel.receive_until(deadline);
    } catch (const ChannelTimeout&) {
      timed_out(timeout);
    } catch (const ChannelError& e) {
      broke_protocol(e.what());
    }
    if (!frame) lane_lost();
    if (!accept_fds_) frame->fds.clear();  // a worker has no business sending descriptors
    if (frame->call != id) {
      broke_protocol("a frame of call " + std::to_string(frame->call) + " on the lane of call " +
                     std::to_string(id));
    }
    switch (static_cast<Kind>(frame->kind)) {
      case Kind::kReply: {
        // The area holds this answer's blocks until the caller is done with the frame.
        frame->area = lane->area.bytes();
        if (!frame->area.empty()) {
          frame->lane_hold = std::shared_ptr<LaneHold>(new LaneHold{*this, std::move(lane)});
        } else {
          release_lane(std::move(lane));
        }
        return std::move(*frame);
      }
      case Kind::kFailure: {
        const Failure failure = read_failure_frame(*frame);
        release_lane(std::move(lane));
        throw_failure(failure);
      }
      case Kind::kSoon:
        if (!frame->payload.empty()) broke_protocol("an announcement with a payload");
        // Asked for or not, first or not: only the first of a call that asked is waited for.
        if (stay_awake && !announced) {
          ++awaited_awake;
          lane->channel.spin_until_readable(kAnnouncedAnswerSpin);
        }
        announced = true;
        break;
      default:
        deliver_progress(progress, *frame);
    }
  }
}

Frame WorkerConnection::call_shared(Kind kind, const std::vector<std::string_view>& parts,
                                    const Progress& progress,
                                    std::chrono::steady_clock::duration timeout,
                                    const std::function<void()>& while_waiting) {
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
    if (while_waiting) while_waiting();
  } catch (const ChannelError&) {
    // The reader sees the same end and fails the other calls.
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::unique_lock lock(mu_);
    if (!pending->cv.wait_until(lock, deadline,
                                [&] { return pending->lost || !pending->frames.empty(); })) {
      lock.unlock();
      timed_out(timeout);
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
      case Kind::kFailure:
        throw_failure(read_failure_frame(frame));
      default:
        deliver_progress(progress, frame);
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

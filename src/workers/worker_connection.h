// WorkerConnection: the server's end of one worker's (or the zygote's) channel, with the calls in
// flight on it (docs/security.md#worker-processes).
//
// call() sends a request and blocks until its answer. A worker's connection carries each call on
// a lane (docs/security.md#worker-processes): sockets of its own (workers/lane_sockets.h), made
// here and sent to the worker over the channel, used by one call at a time; the calling thread
// sends the call on it and reads the answer itself, and the worker handles the call on the lane's
// own thread, so a call costs no hand-off between threads on either side. A lane whose call ended
// normally is kept for the next call (at most kMaxIdleLanes per worker); one whose call ended any
// other way is closed. The zygote's connection (no lanes) sends calls on the channel itself, and a
// reader thread routes each frame to the call it answers. The reader thread also watches the
// channel of a worker's connection (its hello, its end). When the process dies or breaks the
// protocol, every call in flight fails with WorkerLostError and the connection stays dead (the pool
// replaces it).
//
// While few calls are in flight in this process (at most one per two CPUs), a call on a lane
// looks for its answer awake, right after it is sent, for at most kAnswerSpin before its thread
// sleeps in its read (docs/security.md#answers-found-awake). It also asks the worker to announce
// its answer (kAnnounceFlag). When the worker does (kSoon), the calling thread spins for the
// answer instead of sleeping, for at most kAnnouncedAnswerSpin, once per call
// (docs/security.md#answers-announced).
//
// The other way, wake() takes an idle lane ahead of a call and tells its worker thread that a call
// is coming (kWake), while the same few calls are in flight: the thread wakes while the caller
// does its own work, and looks for the call without sleeping for at most kWokenLaneSpin. The call
// that follows is given the lane (WokenLane) and sends on it (docs/security.md#calls-announced).
//
// Thread-safety: every member may be called from any thread; a WokenLane is used by one thread at
// a time.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <sys/types.h>

#include "workers/channel.h"
#include "workers/lane_area.h"
#include "workers/worker_protocol.h"

namespace sandbox::workers {

// Idle lanes a worker's connection keeps for later calls; a lane freed beyond them is closed.
// Each costs a descriptor in the server and a descriptor and a waiting thread in the worker; 16
// covers the calls a worker runs at once in the usual pool (as many workers as cores).
inline constexpr std::size_t kMaxIdleLanes = 16;

// The longest a calling thread looks for its answer awake right after sending its call, while few
// calls are in flight: a step of Lua or JavaScript is answered within 50-150 µs of its call,
// where sleeping would cost a wake-up of 35-50 µs on an idle virtual CPU. Past it, the thread
// sleeps in its read (and an announcement may have it spin once more), so a call costs the server
// at most this plus kAnnouncedAnswerSpin of CPU.
inline constexpr std::chrono::microseconds kAnswerSpin{200};

// The longest a calling thread spins for an answer its worker announced (Kind::kSoon). The worker
// announces before it collects the memory its call changed, 10-150 µs for the built-in engines;
// past the limit the thread sleeps in its read as before, so a worker that announces and then
// takes its time, or lies, costs the server at most this much CPU per call.
inline constexpr std::chrono::microseconds kAnnouncedAnswerSpin{300};

// Announced answers (Kind::kSoon) that calls on lanes in this process stayed awake for, since it
// started (for tests).
std::size_t answers_awaited_awake();

// Answers that calls on lanes in this process found while their threads looked right after the
// call (kAnswerSpin), since it started (for tests).
std::size_t answers_found_awake();

// Lanes told that a call is coming (wake()) in this process, since it started (for tests).
std::size_t lanes_woken();

class WorkerConnection {
  struct LaneEnd;

 public:
  // A lane taken ahead of a call by wake(), its worker thread told that the call is coming. Given
  // to call() or call_composed() of the same connection, which send on it; dropped unused, it
  // goes back to the connection's idle lanes. Must not outlive its connection.
  class WokenLane {
   public:
    WokenLane() noexcept : connection_(nullptr) {}
    WokenLane(WokenLane&& other) noexcept;
    WokenLane& operator=(WokenLane&& other) noexcept;
    WokenLane(const WokenLane&) = delete;
    WokenLane& operator=(const WokenLane&) = delete;
    ~WokenLane();
    explicit operator bool() const { return lane_ != nullptr; }

   private:
    friend class WorkerConnection;
    void reset();
    WorkerConnection* connection_;
    std::unique_ptr<LaneEnd> lane_;
  };

  // Frames a call receives before its answer (kOutput, kCwd): handled on the calling thread.
  using Progress = std::function<void(const Frame&)>;
  // Frames that belong to no call (the hello of call 0, the zygote's kExited).
  using Unsolicited = std::function<void(const Frame&)>;
  // Called once, from the reader thread, when the connection dies (with the reason) before its
  // destruction began.
  using OnDeath = std::function<void(const std::string&)>;

  // Takes the channel; starts the reader thread. `max_payload_bytes` bounds a received frame (on
  // the channel and on lanes); descriptors sent along a frame are kept only with `accept_fds`
  // (the zygote's channel). With `lanes` (a worker's channel), calls go on lanes.
  WorkerConnection(UniqueFd fd, pid_t pid, std::size_t max_payload_bytes, bool accept_fds,
                   bool lanes, Unsolicited unsolicited, OnDeath on_death);
  // Closes the channel (the process exits when it sees that) and joins the reader.
  ~WorkerConnection();
  WorkerConnection(const WorkerConnection&) = delete;
  WorkerConnection& operator=(const WorkerConnection&) = delete;

  // Sends `parts` as one frame of `kind` and waits up to `timeout` for its kReply (returned).
  // A kFailure answer is thrown as what the worker caught (throw_failure); a dead process, a
  // broken frame or the timeout (which kills the process) throw WorkerLostError.
  // `while_waiting`, when set, runs on the calling thread once the frame is sent and before the
  // answer is read: work of the caller's that overlaps the worker's. What it throws ends the
  // call (its answer unread; the lane is closed).
  // With `woken` (from wake() on this connection), the call goes on that lane.
  Frame call(Kind kind, const std::vector<std::string_view>& parts, const Progress& progress,
             std::chrono::steady_clock::duration timeout,
             const std::function<void()>& while_waiting = {}, WokenLane woken = {});

  // Makes a call's frame once the lane it goes on is known: it may write into `area` (the
  // lane's area; empty when the call has none) bytes for the worker to read there instead of in
  // the frame, and returns the frame's parts, which must stay valid until the call returns.
  using Compose = std::function<std::vector<std::string_view>(std::span<char> area)>;
  // call(), with the frame made by `compose`, called once.
  Frame call_composed(Kind kind, const Compose& compose, const Progress& progress,
                      std::chrono::steady_clock::duration timeout,
                      const std::function<void()>& while_waiting = {}, WokenLane woken = {});

  // Sends one more frame of the call in flight (of `kind`, with the call's id) on its lane, after
  // those sent before. Throws WorkerLostError when the lane is gone.
  using SendMore = std::function<void(Kind kind, const std::vector<std::string_view>& parts)>;
  // The rest of a call in several frames: run on the calling thread once the first frame is
  // sent and before the answer is read (as call()'s `while_waiting` is), with what sends the
  // further frames and the lane's area, which the first frame leaves unused (empty when the lane
  // has none). What it throws ends the call (its answer unread; the lane is closed).
  using Stream = std::function<void(const SendMore& send_more, std::span<char> area)>;
  // call(), on a lane, with the frames `stream` sends after the first (made of `parts`): a call
  // whose request is still being made when the worker starts on it
  // (docs/security.md#restore-overlap). Throws std::logic_error on the zygote's connection.
  Frame call_streamed(Kind kind, const std::vector<std::string_view>& parts, const Stream& stream,
                      const Progress& progress, std::chrono::steady_clock::duration timeout,
                      WokenLane woken = {});

  // Tells the worker that a call is coming (kWake) on the lane `woken` holds, or on an idle lane
  // it then takes, while at most one call per two CPUs, this one included, would be in flight in
  // this process: the lane's thread looks for the call awake. Does nothing on the zygote's
  // connection, with more calls in flight, without an idle lane (no lane is made for a hint) or
  // once the process is gone; never throws.
  void wake(WokenLane& woken);

  // Kills the process (SIGKILL); its calls fail once the channel closes.
  void kill();
  bool dead() const;
  pid_t pid() const { return pid_; }
  // Calls in flight.
  std::size_t in_flight() const { return in_flight_.load(); }
  // Kills the process, which sent something the protocol does not allow (`what`), and throws
  // the WorkerLostError its call fails with.
  [[noreturn]] void broke_protocol(std::string_view what);
  // Lanes open, idle or carrying a call (for tests).
  std::size_t lanes() const { return lanes_.load(); }

 private:
  struct Pending {
    std::condition_variable cv;  // waits under mu_
    std::deque<Frame> frames;
    bool lost = false;
  };
  // A lane's server ends (answers read from `in`, calls sent on `out`; workers/lane_sockets.h),
  // whose peers the worker holds, and the area they share (none when no memfd could be made: the
  // answers then carry their blocks in the frame).
  struct LaneEnd {
    LaneEnd(UniqueFd in, UniqueFd out, std::size_t max_payload_bytes, LaneArea shared)
        : channel(std::move(in), std::move(out), max_payload_bytes), area(std::move(shared)) {}
    Channel channel;
    LaneArea area;
  };
  using Lane = std::unique_ptr<LaneEnd>;
  // Holds a lane whose answer is still being read (Frame::lane_hold) and releases it after.
  struct LaneHold;

  void reader_main();
  void die(const std::string& reason);
  Frame call_shared(Kind kind, const std::vector<std::string_view>& parts, const Progress& progress,
                    std::chrono::steady_clock::duration timeout,
                    const std::function<void()>& while_waiting);
  // Sends `parts`, or what `compose` (when not null) makes once the lane is known, then the
  // frames `stream` sends (when not null).
  Frame call_on_lane(Kind kind, const std::vector<std::string_view>& parts, const Compose* compose,
                     const Progress& progress, std::chrono::steady_clock::duration timeout,
                     const std::function<void()>& while_waiting, WokenLane woken,
                     const Stream* stream = nullptr);
  // A new lane, its other end sent to the worker. Throws WorkerLostError when the worker is gone.
  Lane open_lane();
  // Keeps `lane` for a later call, or closes it when enough are idle or the process is dead.
  void release_lane(Lane lane);
  void close_lane(Lane lane);
  // The lane of a call closed before its answer: the process died (or closed it, and is killed).
  [[noreturn]] void lane_lost();
  // Decodes a kFailure frame; one that does not decode breaks the protocol (WorkerLostError).
  Failure read_failure_frame(const Frame& frame);
  // Hands a frame that precedes the answer to `progress`; a WireError from it breaks the protocol.
  void deliver_progress(const Progress& progress, const Frame& frame);
  [[noreturn]] void timed_out(std::chrono::steady_clock::duration timeout);

  Channel channel_;
  const pid_t pid_;
  const bool accept_fds_;
  const bool use_lanes_;
  const std::size_t max_payload_bytes_;
  Unsolicited unsolicited_;
  OnDeath on_death_;
  std::atomic<std::uint64_t> next_call_{1};
  std::atomic<std::size_t> in_flight_{0};
  std::atomic<std::size_t> lanes_{0};
  mutable std::mutex mu_;
  std::condition_variable death_cv_;  // notified under mu_ when dead_ becomes true
  std::vector<Lane> idle_lanes_;
  std::map<std::uint64_t, std::shared_ptr<Pending>> pending_;
  bool dead_ = false;
  bool closing_ = false;  // the destructor runs: an end that is no loss
  std::string death_;
  std::thread reader_;
};

}  // namespace sandbox::workers

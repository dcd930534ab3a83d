// WorkerConnection: the server's end of one worker's (or the zygote's) channel, with the calls in
// flight on it (docs/security.md#worker-processes).
//
// call() sends a request and blocks until its answer; a reader thread routes each frame the
// process sends to the call it answers. When the process dies or breaks the protocol, every call
// in flight fails with WorkerLostError and the connection stays dead (the pool replaces it).
//
// Thread-safety: every member may be called from any thread.
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
#include <string>
#include <thread>
#include <vector>

#include <sys/types.h>

#include "workers/channel.h"
#include "workers/worker_protocol.h"

namespace sandbox::workers {

class WorkerConnection {
 public:
  // Frames a call receives before its answer (kOutput, kCwd): handled on the calling thread.
  using Progress = std::function<void(const Frame&)>;
  // Frames that belong to no call (the hello of call 0, the zygote's kExited).
  using Unsolicited = std::function<void(const Frame&)>;
  // Called once, from the reader thread, when the connection dies (with the reason) before its
  // destruction began.
  using OnDeath = std::function<void(const std::string&)>;

  // Takes the channel; starts the reader thread. `max_payload_bytes` bounds a received frame;
  // descriptors sent along a frame are kept only with `accept_fds` (the zygote's channel).
  WorkerConnection(UniqueFd fd, pid_t pid, std::size_t max_payload_bytes, bool accept_fds,
                   Unsolicited unsolicited, OnDeath on_death);
  // Closes the channel (the process exits when it sees that) and joins the reader.
  ~WorkerConnection();
  WorkerConnection(const WorkerConnection&) = delete;
  WorkerConnection& operator=(const WorkerConnection&) = delete;

  // Sends `parts` as one frame of `kind` and waits up to `timeout` for its kReply (returned).
  // A kFailure answer is thrown as what the worker caught (throw_failure); a dead process, a
  // broken frame or the timeout (which kills the process) throw WorkerLostError.
  Frame call(Kind kind, const std::vector<std::string_view>& parts, const Progress& progress,
             std::chrono::steady_clock::duration timeout);

  // Kills the process (SIGKILL); its calls fail once the channel closes.
  void kill();
  bool dead() const;
  pid_t pid() const { return pid_; }
  // Calls in flight.
  std::size_t in_flight() const { return in_flight_.load(); }

 private:
  struct Pending {
    std::condition_variable cv;  // waits under mu_
    std::deque<Frame> frames;
    bool lost = false;
  };
  void reader_main();
  void die(const std::string& reason);

  Channel channel_;
  const pid_t pid_;
  const bool accept_fds_;
  Unsolicited unsolicited_;
  OnDeath on_death_;
  std::atomic<std::uint64_t> next_call_{1};
  std::atomic<std::size_t> in_flight_{0};
  mutable std::mutex mu_;
  std::map<std::uint64_t, std::shared_ptr<Pending>> pending_;
  bool dead_ = false;
  bool closing_ = false;  // the destructor runs: an end that is no loss
  std::string death_;
  std::thread reader_;
};

}  // namespace sandbox::workers

// WorkerConnection's lanes (src/workers/worker_connection.h, docs/security.md#worker-processes)
// against a scripted worker that runs in this process: lanes are made on demand and kept for the
// next call only after a normal end, idle ones are bounded, and what arrives on a lane is hostile
// input (the payload limit, the call id, descriptors, a lane closed or left silent). A lane's
// shared area (src/workers/lane_area.h) is mapped only when sealed and whole, and stays with an
// answer until the caller lets the answer go. Work the caller gives a call runs while the worker
// works on it. While few calls are in flight, a call looks for its answer awake for a bounded
// time, and asks the worker to announce its answer; an announcement costs the caller one bounded
// spin at most.
//
// The connection kills its process when a worker misbehaves; the scripted worker has none, so
// each test gives the connection a child that only waits, to be killed.
#include "workers/worker_connection.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <ctime>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sandbox/isolation.h>

#include "workers/lane_area.h"
#include "workers/lane_sockets.h"

namespace sandbox::workers {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kLimit = 1 << 16;

// A child process that waits to be killed.
class Victim {
 public:
  Victim() : pid_(::fork()) {
    if (pid_ == 0) {
      for (;;) ::pause();
    }
  }
  ~Victim() {
    ::kill(pid_, SIGKILL);
    if (!reaped_) ::waitpid(pid_, nullptr, 0);
  }
  Victim(const Victim&) = delete;
  Victim& operator=(const Victim&) = delete;
  pid_t pid() const { return pid_; }
  // Whether it was killed by SIGKILL, waiting up to `wait` for it to end.
  bool killed(std::chrono::milliseconds wait = 5s) {
    for (auto waited = 0ms; !reaped_; waited += 10ms) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        reaped_ = true;
        status_ = status;
        break;
      }
      if (waited >= wait) break;
      std::this_thread::sleep_for(10ms);
    }
    return reaped_ && WIFSIGNALED(status_) && WTERMSIG(status_) == SIGKILL;
  }

 private:
  pid_t pid_;
  bool reaped_ = false;
  int status_ = 0;
};

// The area of the lane the calling thread serves (a ScriptedWorker's lane thread).
thread_local std::span<char> t_lane_area;

// The worker's side: receives lanes on the channel and serves each on a thread of its own with
// `serve_call`, until the server closes the lane. A lane's area is mapped as a worker maps it
// (t_lane_area while the lane is served).
class ScriptedWorker {
 public:
  using ServeCall = std::function<void(Channel& lane, const Frame& call)>;

  ScriptedWorker(UniqueFd fd, ServeCall serve_call)
      : channel_(std::move(fd), kLimit), serve_call_(std::move(serve_call)) {
    main_ = std::thread([this] {
      try {
        while (std::optional<Frame> frame = channel_.receive()) {
          if (static_cast<Kind>(frame->kind) != Kind::kLane) continue;
          std::optional<LaneGrant> lane = take_lane(*frame);
          if (!lane) continue;
          ++lanes_received_;
          std::lock_guard lock(mu_);
          lane_threads_.emplace_back(
              [this, lane = std::move(*lane)]() mutable { serve(std::move(lane)); });
        }
      } catch (const ChannelError&) {
      }
    });
  }
  // Call after the connection is gone: it closed the channel and every lane.
  ~ScriptedWorker() {
    main_.join();
    for (auto& t : lane_threads_) t.join();
  }
  ScriptedWorker(const ScriptedWorker&) = delete;
  ScriptedWorker& operator=(const ScriptedWorker&) = delete;

  int lanes_received() const { return lanes_received_; }

 private:
  void serve(LaneGrant grant) {
    Channel lane(std::move(grant.calls), std::move(grant.answers), kLimit);
    const LaneArea area(grant.area.get(), true);
    t_lane_area = area.writable();
    try {
      while (std::optional<Frame> call = lane.receive()) serve_call_(lane, *call);
    } catch (const ChannelError&) {
    }
  }

  Channel channel_;
  ServeCall serve_call_;
  std::atomic<int> lanes_received_{0};
  std::mutex mu_;
  std::vector<std::thread> lane_threads_;
  std::thread main_;
};

// Answers with the request's payload, after one output frame carrying it.
void echo(Channel& lane, const Frame& call) {
  lane.send(static_cast<std::uint32_t>(Kind::kOutput), call.call, call.payload);
  lane.send(static_cast<std::uint32_t>(Kind::kReply), call.call, call.payload);
}

// A connection with lanes to a scripted worker.
struct Rig {
  explicit Rig(ScriptedWorker::ServeCall serve_call) {
    int ends[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), 0);
    worker = std::make_unique<ScriptedWorker>(UniqueFd(ends[1]), std::move(serve_call));
    connection = std::make_unique<WorkerConnection>(UniqueFd(ends[0]), victim.pid(), kLimit, false,
                                                    true, nullptr, nullptr);
  }
  ~Rig() {
    connection.reset();
    worker.reset();
  }
  std::string call(const std::string& payload, std::chrono::milliseconds timeout = 10s,
                   const WorkerConnection::Progress& progress = {}) {
    return connection->call(Kind::kRun, {payload}, progress, timeout).payload;
  }

  Victim victim;
  std::unique_ptr<ScriptedWorker> worker;
  std::unique_ptr<WorkerConnection> connection;
};

TEST(WorkerConnectionLanes, ConcurrentCallsEachGetTheirOwnOutputAndAnswer) {
  Rig s(echo);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const std::string mine = std::to_string(t) + "/" + std::to_string(i);
        std::string seen;
        const std::string answer =
            s.call(mine, 10s, [&](const Frame& frame) { seen += frame.payload; });
        if (answer != mine || seen != mine) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(s.connection->in_flight(), 0u);
  EXPECT_LE(s.worker->lanes_received(), 16);
  EXPECT_EQ(s.connection->lanes(), static_cast<std::size_t>(s.worker->lanes_received()));
  EXPECT_FALSE(s.victim.killed(0ms));
}

TEST(WorkerConnectionLanes, ALaneIsKeptAfterANormalEndAndClosedAfterAnyOther) {
  Rig s([](Channel& lane, const Frame& call) {
    if (call.payload == "fail") {
      Writer w;
      write_failure(w, Failure{FailureType::kError, "as asked"});
      lane.send(static_cast<std::uint32_t>(Kind::kFailure), call.call, w.buffer());
      return;
    }
    echo(lane, call);
  });
  EXPECT_EQ(s.call("a"), "a");
  EXPECT_EQ(s.call("b"), "b");
  EXPECT_THROW(s.call("fail"), std::runtime_error);  // an answer: a normal end
  EXPECT_EQ(s.call("c"), "c");
  EXPECT_EQ(s.worker->lanes_received(), 1);
  EXPECT_EQ(s.connection->lanes(), 1u);
  // The caller gives up while the worker still sends: the rest of the call would be read by the
  // next one, so the lane is closed.
  EXPECT_THROW(s.call("d", 10s, [](const Frame&) { throw std::runtime_error("gone"); }),
               std::runtime_error);
  EXPECT_EQ(s.connection->lanes(), 0u);
  EXPECT_EQ(s.call("e"), "e");
  EXPECT_EQ(s.worker->lanes_received(), 2);
  EXPECT_EQ(s.connection->lanes(), 1u);
  EXPECT_FALSE(s.victim.killed(0ms));
}

TEST(WorkerConnectionLanes, IdleLanesAreBounded) {
  constexpr int kCalls = 2 * static_cast<int>(kMaxIdleLanes) + 3;
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0;
  Rig s([&](Channel& lane, const Frame& call) {
    {
      // The first kCalls calls are answered once all of them are in flight.
      std::unique_lock lock(mu);
      ++arrived;
      cv.notify_all();
      cv.wait(lock, [&] { return arrived >= kCalls; });
    }
    echo(lane, call);
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kCalls; ++t) {
    threads.emplace_back([&] { EXPECT_EQ(s.call("x"), "x"); });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(s.worker->lanes_received(), kCalls);
  EXPECT_EQ(s.connection->lanes(), kMaxIdleLanes);
  // Later calls, even as many at once as there are idle lanes, use the kept ones.
  threads.clear();
  for (std::size_t t = 0; t < kMaxIdleLanes; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) EXPECT_EQ(s.call("y"), "y");
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(s.worker->lanes_received(), kCalls);
  EXPECT_EQ(s.connection->lanes(), kMaxIdleLanes);
}

// Each hostile answer fails its call with WorkerLostError, kills the process and closes the lane.
void expect_lost(const std::string& request, const std::string& says,
                 std::chrono::milliseconds timeout = 10s) {
  Rig s([](Channel& lane, const Frame& call) {
    const std::string& p = call.payload;
    const auto reply = static_cast<std::uint32_t>(Kind::kReply);
    if (p == "too-large") {
      lane.send(reply, call.call, std::string(kLimit + 1, 'x'));
    } else if (p == "other-call") {
      lane.send(reply, call.call + 1, "x");
    } else if (p == "close") {
      ::shutdown(lane.send_fd(), SHUT_RDWR);
    } else if (p == "announcement-with-payload") {
      lane.send(static_cast<std::uint32_t>(Kind::kSoon), call.call, "x");
      lane.send(reply, call.call, "x");
    } else if (p == "half-frame") {
      // A header that announces more than ever comes.
      const std::string header("\x10\0\0\0\x64\0\0\0\x01\0\0\0\0\0\0\0", 16);
      ::send(lane.send_fd(), header.data(), header.size(), MSG_NOSIGNAL);
    }  // "silent": no answer
  });
  try {
    s.call(request, timeout);
    ADD_FAILURE() << request << ": no error";
  } catch (const WorkerLostError& e) {
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << request << ": " << e.what();
  }
  EXPECT_EQ(s.connection->lanes(), 0u) << request;
  EXPECT_TRUE(s.victim.killed()) << request;
}

TEST(WorkerConnectionLanes, HostileOrMissingAnswersOnALaneFailTheCallAndKillTheWorker) {
  expect_lost("too-large", "broke the protocol");
  expect_lost("other-call", "broke the protocol");
  expect_lost("close", "died");
  expect_lost("silent", "did not answer", 200ms);
  expect_lost("half-frame", "did not answer", 200ms);
  expect_lost("announcement-with-payload", "broke the protocol");
}

TEST(WorkerConnectionLanes, ADescriptorSentOnALaneIsDropped) {
  Rig s([](Channel& lane, const Frame& call) {
    lane.send(static_cast<std::uint32_t>(Kind::kReply), call.call, "x", lane.send_fd());
  });
  const Frame reply = s.connection->call(Kind::kRun, {"x"}, {}, 10s);
  EXPECT_EQ(reply.payload, "x");
  EXPECT_TRUE(reply.fds.empty());
  EXPECT_FALSE(s.victim.killed(0ms));
}

TEST(WorkerConnectionLanes, ALanesAreaCarriesWhatTheWorkerWrote) {
  Rig s([](Channel& lane, const Frame& call) {
    const std::span<char> area = t_lane_area;
    std::string reply = area.size() == kLaneAreaBytes ? "mapped" : "no area";
    // Writes the request at the area's end: the whole area is the worker's to write.
    std::copy(call.payload.begin(), call.payload.end(),
              area.end() - static_cast<std::ptrdiff_t>(call.payload.size()));
    lane.send(static_cast<std::uint32_t>(Kind::kReply), call.call, reply);
  });
  const Frame reply = s.connection->call(Kind::kRun, {"in the area"}, {}, 10s);
  EXPECT_EQ(reply.payload, "mapped");
  ASSERT_EQ(reply.area.size(), kLaneAreaBytes);
  EXPECT_EQ(std::string(reply.area.end() - 11, reply.area.end()), "in the area");
  EXPECT_FALSE(s.victim.killed(0ms));
}

TEST(WorkerConnectionLanes, ACallCanLeaveBytesForTheWorkerInItsLanesArea) {
  // The worker answers with as many bytes from its area's start as the request names.
  Rig s([](Channel& lane, const Frame& call) {
    const std::size_t n = std::stoul(std::string(call.payload));
    lane.send(static_cast<std::uint32_t>(Kind::kReply), call.call,
              std::string_view(t_lane_area.data(), std::min(n, t_lane_area.size())));
  });
  for (const std::string text : {"from the server", "and again"}) {
    const std::string size = std::to_string(text.size());
    std::size_t area_seen = 0;
    const Frame reply = s.connection->call_composed(
        Kind::kRun,
        [&](std::span<char> area) -> std::vector<std::string_view> {
          area_seen = area.size();
          std::copy(text.begin(), text.end(), area.begin());
          return {size};
        },
        {}, 10s);
    EXPECT_EQ(area_seen, kLaneAreaBytes);
    EXPECT_EQ(reply.payload, text);
  }
  EXPECT_EQ(s.worker->lanes_received(), 1);
  EXPECT_FALSE(s.victim.killed(0ms));
}

TEST(WorkerConnectionLanes, AnAreaThatCouldShrinkOrHasAnotherSizeIsNotMapped) {
  // A worker reads only areas the server made: sealed against shrinking and growing, of
  // kLaneAreaBytes. Anything else would let one side cut the area short under the other's reads.
  const UniqueFd made = LaneArea::create();
  ASSERT_GE(made.get(), 0);
  EXPECT_EQ(::ftruncate(made.get(), 4096), -1);  // sealed
  EXPECT_EQ(LaneArea(made.get(), true).writable().size(), kLaneAreaBytes);
  EXPECT_EQ(LaneArea(made.get(), false).bytes().size(), kLaneAreaBytes);
  EXPECT_TRUE(LaneArea(made.get(), false).writable().empty());  // mapped read-only

  const UniqueFd unsealed(::memfd_create("unsealed", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  ASSERT_EQ(::ftruncate(unsealed.get(), static_cast<off_t>(kLaneAreaBytes)), 0);
  EXPECT_TRUE(LaneArea(unsealed.get(), true).bytes().empty());
  ASSERT_EQ(::fcntl(unsealed.get(), F_ADD_SEALS, F_SEAL_GROW | F_SEAL_SEAL), 0);
  EXPECT_TRUE(LaneArea(unsealed.get(), true).bytes().empty());  // may still shrink

  const UniqueFd small(::memfd_create("small", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  ASSERT_EQ(::ftruncate(small.get(), 4096), 0);
  ASSERT_EQ(::fcntl(small.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), 0);
  EXPECT_TRUE(LaneArea(small.get(), true).bytes().empty());
  EXPECT_TRUE(LaneArea(-1, true).bytes().empty());
}

TEST(WorkerConnectionLanes, ALaneStaysWithItsAnswerUntilTheAnswerIsGone) {
  // The worker writes each request into its lane's area; an answer held by the caller keeps its
  // bytes while later calls run, each on another lane.
  Rig s([](Channel& lane, const Frame& call) {
    std::copy(call.payload.begin(), call.payload.end(), t_lane_area.begin());
    lane.send(static_cast<std::uint32_t>(Kind::kReply), call.call, "");
  });
  auto area_text = [](const Frame& f, std::size_t n) { return std::string(f.area.data(), n); };
  std::optional<Frame> first(s.connection->call(Kind::kRun, {"first"}, {}, 10s));
  EXPECT_EQ(s.connection->lanes(), 1u);
  for (const std::string later : {"later", "again"}) {
    const Frame reply = s.connection->call(Kind::kRun, {later}, {}, 10s);
    EXPECT_EQ(area_text(reply, 5), later);
  }
  EXPECT_EQ(area_text(*first, 5), "first");
  EXPECT_EQ(s.worker->lanes_received(), 2);  // the second lane was kept after each later call
  first.reset();                             // the first lane is idle again
  EXPECT_EQ(s.connection->lanes(), 2u);
  EXPECT_EQ(s.call("third"), "");
  EXPECT_EQ(s.worker->lanes_received(), 2);
  EXPECT_FALSE(s.victim.killed(0ms));
}

// A restore sets the server's copy of the memory while the worker restores (RemoteSession):
// the work given as `while_waiting` runs once the request is sent, so the worker already has it
// and the two overlap. This worker answers only after the server's side of the work has begun:
// run after the answer, it would never begin.
TEST(WorkerConnectionLanes, WorkWhileWaitingRunsOnceTheRequestIsSentAndOverlapsTheWorkers) {
  std::mutex mu;
  std::condition_variable cv;
  bool server_working = false;
  Rig s([&](Channel& lane, const Frame& call) {
    std::unique_lock lock(mu);
    const bool overlapped = cv.wait_for(lock, 5s, [&] { return server_working; });
    lane.send(static_cast<std::uint32_t>(Kind::kReply), call.call,
              overlapped ? call.payload : std::string("answered alone"));
  });
  for (const std::string request : {"first", "second"}) {
    {
      const std::lock_guard lock(mu);
      server_working = false;
    }
    bool ran = false;
    const Frame reply = s.connection->call(Kind::kRun, {request}, {}, 10s, [&] {
      ran = true;
      const std::lock_guard lock(mu);
      server_working = true;
      cv.notify_all();
    });
    EXPECT_TRUE(ran);
    EXPECT_EQ(reply.payload, request);
  }
  EXPECT_EQ(s.worker->lanes_received(), 1);  // a normal end: the lane is kept
  // What the work throws ends the call; its lane, whose answer is unread, is closed.
  EXPECT_THROW(s.connection->call(Kind::kRun, {"third"}, {}, 10s,
                                  [] { throw std::runtime_error("the server's side failed"); }),
               std::runtime_error);
  EXPECT_EQ(s.connection->in_flight(), 0u);
  EXPECT_EQ(s.connection->lanes(), 0u);
  {
    const std::lock_guard lock(mu);
    server_working = true;  // the next call needs no work of the server's
  }
  EXPECT_EQ(s.call("fourth"), "fourth");
  EXPECT_EQ(s.worker->lanes_received(), 2);
  EXPECT_FALSE(s.victim.killed(0ms));
}

// docs/security.md#restore-overlap: a streamed call's first frame reaches the worker before the
// rest is sent, the frames the stream sends follow it in order with the call's id, the area is
// the lane's, and the answer is read after the stream; a stream that throws ends the call and
// its lane.
TEST(WorkerConnectionLanes, AStreamedCallSendsItsFramesInOrderBeforeTheAnswerIsRead) {
  std::mutex mu;
  std::condition_variable cv;
  bool started = false;
  // The worker answers a kRestore with the call's payload, then each further frame's with the
  // byte of the area at its index; an empty frame ends the call. Other calls are echoed.
  Rig s([&](Channel& lane, const Frame& call) {
    std::string answer(call.payload);
    if (static_cast<Kind>(call.kind & ~kAnnounceFlag) == Kind::kRestore) {
      {
        const std::lock_guard lock(mu);
        started = true;
        cv.notify_all();
      }
      for (std::size_t i = 0;; ++i) {
        std::optional<Frame> more = lane.receive();
        if (!more) return;
        if (more->call != call.call || static_cast<Kind>(more->kind) != Kind::kRestoreBlocks) {
          answer = "out of step";
          break;
        }
        if (more->payload.empty()) break;
        answer += "|" + more->payload + ":" + t_lane_area[i];
      }
    }
    lane.send(static_cast<std::uint32_t>(Kind::kReply), call.call, answer);
  });
  for (const std::string request : {"first", "second"}) {
    {
      const std::lock_guard lock(mu);
      started = false;
    }
    std::size_t area_seen = 0;
    bool worker_started_first = false;
    const Frame reply = s.connection->call_streamed(
        Kind::kRestore, {request},
        [&](const WorkerConnection::SendMore& send_more, std::span<char> area) {
          area_seen = area.size();
          {
            std::unique_lock lock(mu);
            worker_started_first = cv.wait_for(lock, 5s, [&] { return started; });
          }
          // Each frame's part of the area is written before the frame is sent.
          area[0] = 'a';
          send_more(Kind::kRestoreBlocks, {"one"});
          area[1] = 'b';
          send_more(Kind::kRestoreBlocks, {"tw", "o"});
          send_more(Kind::kRestoreBlocks, {});
        },
        {}, 10s);
    EXPECT_TRUE(worker_started_first);
    EXPECT_EQ(area_seen, kLaneAreaBytes);
    EXPECT_EQ(reply.payload, request + "|one:a|two:b");
  }
  EXPECT_EQ(s.worker->lanes_received(), 1);  // a normal end: the lane is kept
  EXPECT_THROW(s.connection->call_streamed(
                   Kind::kRestore, {"third"},
                   [](const WorkerConnection::SendMore& send_more, std::span<char>) {
                     send_more(Kind::kRestoreBlocks, {"piece"});
                     throw std::runtime_error("the server's side failed");
                   },
                   {}, 10s),
               std::runtime_error);
  EXPECT_EQ(s.connection->in_flight(), 0u);
  EXPECT_EQ(s.connection->lanes(), 0u);
  EXPECT_EQ(s.call("fourth"), "fourth");
  EXPECT_EQ(s.worker->lanes_received(), 2);
  EXPECT_FALSE(s.victim.killed(0ms));
}

// CPU time of the calling thread.
std::chrono::nanoseconds thread_cpu() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

// docs/security.md#answers-announced: a call alone in flight asks for an announcement (the flag
// in its kind, beside the call's own kind), and the answer that follows one is read as usual.
TEST(WorkerConnectionLanes, ACallAloneAsksForAnAnnouncementAndReadsTheAnswerAfterIt) {
  std::atomic<std::uint32_t> kind_seen{0};
  Rig s([&](Channel& lane, const Frame& call) {
    kind_seen = call.kind;
    lane.send(static_cast<std::uint32_t>(Kind::kSoon), call.call, {});
    std::this_thread::sleep_for(1ms);
    lane.send(static_cast<std::uint32_t>(Kind::kReply), call.call, call.payload);
  });
  const std::size_t before = answers_awaited_awake();
  EXPECT_EQ(s.call("step"), "step");
  EXPECT_EQ(kind_seen.load(), static_cast<std::uint32_t>(Kind::kRun) | kAnnounceFlag);
  EXPECT_EQ(answers_awaited_awake(), before + 1);
  EXPECT_EQ(s.worker->lanes_received(), 1);  // a normal end: the lane is kept
  EXPECT_EQ(s.call("again"), "again");
  EXPECT_EQ(s.worker->lanes_received(), 1);
  EXPECT_FALSE(s.victim.killed(0ms));
}

// A worker that announces again and again, and then takes its time, costs the calling thread
// one spin of kAnnouncedAnswerSpin: it then sleeps in its read.
TEST(WorkerConnectionLanes, AnAnnouncementCostsTheCallerOneBoundedSpinAtMost) {
  Rig s([](Channel& lane, const Frame& call) {
    for (int i = 0; i < 100; ++i) {
      lane.send(static_cast<std::uint32_t>(Kind::kSoon), call.call, {});
    }
    std::this_thread::sleep_for(500ms);
    lane.send(static_cast<std::uint32_t>(Kind::kReply), call.call, call.payload);
  });
  const std::size_t before = answers_awaited_awake();
  const auto cpu = thread_cpu();
  const auto wall = std::chrono::steady_clock::now();
  EXPECT_EQ(s.call("slow"), "slow");
  EXPECT_GE(std::chrono::steady_clock::now() - wall, 500ms);
  // Spinning until the answer would be 500 ms of CPU; one spin and 100 small frames, a few ms.
  EXPECT_LT(thread_cpu() - cpu, 100ms);
  EXPECT_EQ(answers_awaited_awake(), before + 1);
  EXPECT_FALSE(s.victim.killed(0ms));
}

// docs/security.md#answers-found-awake: a call alone in flight looks for its answer right after
// sending it, and finds a quick one awake. The worker thread that answers may itself wait for a
// CPU on a busy machine, so the test asks for one call of 50 found awake, not every one.
TEST(WorkerConnectionLanes, ACallAloneFindsAQuickAnswerAwake) {
  Rig s(echo);
  bool found = false;
  for (int i = 0; i < 50 && !found; ++i) {
    const std::size_t before = answers_found_awake();
    EXPECT_EQ(s.call("quick"), "quick");
    found = answers_found_awake() > before;
  }
  EXPECT_TRUE(found);
  EXPECT_FALSE(s.victim.killed(0ms));
}

// An answer that takes its time costs the calling thread one look of kAnswerSpin: it then sleeps
// in its read, and the answer is not counted as found awake.
TEST(WorkerConnectionLanes, ASlowAnswerCostsTheCallerOneBoundedLookAtMost) {
  Rig s([](Channel& lane, const Frame& call) {
    std::this_thread::sleep_for(300ms);
    lane.send(static_cast<std::uint32_t>(Kind::kReply), call.call, call.payload);
  });
  const std::size_t before = answers_found_awake();
  const auto cpu = thread_cpu();
  EXPECT_EQ(s.call("slow"), "slow");
  // Looking until the answer would be 300 ms of CPU; one look, well under a millisecond.
  EXPECT_LT(thread_cpu() - cpu, 100ms);
  EXPECT_EQ(answers_found_awake(), before);
  EXPECT_FALSE(s.victim.killed(0ms));
}

// With more calls in flight than one per two CPUs, the calls beyond that many neither ask nor look
// for their answers awake: their threads would spin on CPUs the others need. An announcement no
// one asked for is ignored.
TEST(WorkerConnectionLanes, CallsBeyondOnePerTwoCpusDoNotAskForAnAnnouncement) {
  const std::size_t asking = std::max<std::size_t>(1, std::thread::hardware_concurrency() / 2);
  const std::size_t calls = asking + 1;
  std::mutex mu;
  std::condition_variable cv;
  std::size_t arrived = 0;
  std::size_t flagged = 0;
  Rig s([&](Channel& lane, const Frame& call) {
    {
      std::unique_lock lock(mu);
      ++arrived;
      if ((call.kind & kAnnounceFlag) != 0) ++flagged;
      cv.notify_all();
      // Held until every call is in flight, so each began with the others still in flight.
      cv.wait_for(lock, 10s, [&] { return arrived == calls; });
    }
    // The calls that asked are answered well after their look for the answer ended; the others
    // at once, which they would find if they looked.
    if ((call.kind & kAnnounceFlag) != 0) std::this_thread::sleep_for(100ms);
    lane.send(static_cast<std::uint32_t>(Kind::kSoon), call.call, {});
    lane.send(static_cast<std::uint32_t>(Kind::kReply), call.call, call.payload);
  });
  const std::size_t before = answers_awaited_awake();
  const std::size_t found_before = answers_found_awake();
  std::vector<std::thread> threads;
  std::atomic<std::size_t> answered{0};
  for (std::size_t i = 0; i < calls; ++i) {
    threads.emplace_back([&, i] {
      // One after the other, so that the count each call begins with is known.
      {
        std::unique_lock lock(mu);
        cv.wait_for(lock, 10s, [&] { return arrived == i; });
      }
      if (s.call(std::to_string(i)) == std::to_string(i)) ++answered;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(answered.load(), calls);
  {
    const std::lock_guard lock(mu);
    EXPECT_EQ(flagged, asking);
  }
  EXPECT_EQ(answers_awaited_awake(), before + asking);
  // Nor do they look for their answers awake.
  EXPECT_EQ(answers_found_awake(), found_before);
  EXPECT_FALSE(s.victim.killed(0ms));
}

// The frames each lane of a scripted worker received, in order: "wake" for a kWake (call 0, empty),
// the payload for a call (answered as echo does).
struct LaneLog {
  std::mutex mu;
  std::map<const Channel*, std::vector<std::string>> frames;

  ScriptedWorker::ServeCall serve() {
    return [this](Channel& lane, const Frame& frame) {
      const bool wake = static_cast<Kind>(frame.kind) == Kind::kWake;
      {
        std::lock_guard lock(mu);
        frames[&lane].push_back(wake && frame.call == 0 && frame.payload.empty() ? "wake"
                                                                                 : frame.payload);
      }
      if (!wake) echo(lane, frame);
    };
  }
  std::vector<std::vector<std::string>> lanes() {
    std::lock_guard lock(mu);
    std::vector<std::vector<std::string>> all;
    for (const auto& [lane, seen] : frames) all.push_back(seen);
    return all;
  }
};

// docs/security.md#calls-announced: wake() takes the idle lane and tells its worker thread that a
// call is coming (an unanswered kWake); the call given the woken lane goes on it.
TEST(WorkerConnectionLanes, AWokenLaneHearsThatACallIsComingAndCarriesIt) {
  LaneLog log;
  Rig s(log.serve());
  ASSERT_EQ(s.call("first"), "first");
  const std::size_t before = lanes_woken();
  WorkerConnection::WokenLane woken;
  s.connection->wake(woken);
  ASSERT_TRUE(woken);
  EXPECT_EQ(lanes_woken(), before + 1);
  // Told again (a request that ended before its call, then the next one): the same lane.
  s.connection->wake(woken);
  EXPECT_EQ(lanes_woken(), before + 2);
  const Frame reply = s.connection->call(Kind::kRun, {"second"}, {}, 10s, {}, std::move(woken));
  EXPECT_EQ(reply.payload, "second");
  EXPECT_FALSE(woken);
  EXPECT_EQ(log.lanes(),
            (std::vector<std::vector<std::string>>{{"first", "wake", "wake", "second"}}));
  EXPECT_EQ(s.worker->lanes_received(), 1);
  EXPECT_EQ(s.connection->lanes(), 1u);
  EXPECT_FALSE(s.victim.killed(0ms));
}

// A woken lane whose call never comes goes back to the idle lanes when dropped, and the next
// call takes it: nothing is lost, and no lane is made for a hint.
TEST(WorkerConnectionLanes, AWokenLaneDroppedUnusedGoesBackToTheIdleLanes) {
  LaneLog log;
  Rig s(log.serve());
  {
    WorkerConnection::WokenLane woken;
    s.connection->wake(woken);
    EXPECT_FALSE(woken);  // no idle lane yet: none is made for a hint
  }
  EXPECT_EQ(s.worker->lanes_received(), 0);
  ASSERT_EQ(s.call("a"), "a");
  {
    WorkerConnection::WokenLane woken;
    s.connection->wake(woken);
    ASSERT_TRUE(woken);
  }
  ASSERT_EQ(s.call("b"), "b");
  EXPECT_EQ(log.lanes(), (std::vector<std::vector<std::string>>{{"a", "wake", "b"}}));
  EXPECT_EQ(s.connection->lanes(), 1u);
  EXPECT_FALSE(s.victim.killed(0ms));
}

// With as many calls in flight as may have their thread stay awake (one per two CPUs), no lane is
// woken: its worker thread would spin on a CPU those calls need.
TEST(WorkerConnectionLanes, NoLaneIsWokenWhileOnePerTwoCpusAreInFlight) {
  const std::size_t busy = std::max<std::size_t>(1, std::thread::hardware_concurrency() / 2);
  std::mutex mu;
  std::condition_variable cv;
  std::size_t arrived = 0;
  std::size_t gathered = 0;
  bool release = false;
  Rig s([&](Channel& lane, const Frame& frame) {
    if (static_cast<Kind>(frame.kind) == Kind::kWake) return;
    if (frame.payload == "gather") {  // held until all are in flight: each on a lane of its own
      std::unique_lock lock(mu);
      ++gathered;
      cv.notify_all();
      cv.wait_for(lock, 10s, [&] { return gathered == busy + 1; });
    }
    if (frame.payload == "hold") {
      std::unique_lock lock(mu);
      ++arrived;
      cv.notify_all();
      cv.wait_for(lock, 10s, [&] { return release; });
    }
    echo(lane, frame);
  });
  // Lanes enough for the held calls and one more, all idle.
  {
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i <= busy; ++i) threads.emplace_back([&] { s.call("gather"); });
    for (auto& t : threads) t.join();
  }
  ASSERT_EQ(s.connection->lanes(), busy + 1);
  std::vector<std::thread> held;
  for (std::size_t i = 0; i < busy; ++i)
    held.emplace_back([&] { EXPECT_EQ(s.call("hold"), "hold"); });
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 10s, [&] { return arrived == busy; }));
  }
  const std::size_t before = lanes_woken();
  WorkerConnection::WokenLane woken;
  s.connection->wake(woken);
  EXPECT_FALSE(woken);
  EXPECT_EQ(lanes_woken(), before);
  {
    std::lock_guard lock(mu);
    release = true;
    cv.notify_all();
  }
  for (auto& t : held) t.join();
  s.connection->wake(woken);
  EXPECT_TRUE(woken);
  EXPECT_EQ(s.call("after", 10s), "after");
  EXPECT_FALSE(s.victim.killed(0ms));
}

// A lane woken on one connection cannot carry a call of another: the call refuses it (a bug of
// the caller's), and the lane goes back to its own connection.
TEST(WorkerConnectionLanes, ALaneWokenOnAnotherConnectionIsRefused) {
  LaneLog log;
  Rig a(log.serve());
  Rig b(echo);
  ASSERT_EQ(a.call("a"), "a");
  WorkerConnection::WokenLane woken;
  a.connection->wake(woken);
  ASSERT_TRUE(woken);
  EXPECT_THROW(b.connection->call(Kind::kRun, {"b"}, {}, 10s, {}, std::move(woken)),
               std::logic_error);
  EXPECT_EQ(a.call("again"), "again");
  EXPECT_EQ(a.worker->lanes_received(), 1);
  EXPECT_FALSE(a.victim.killed(0ms));
  EXPECT_FALSE(b.victim.killed(0ms));
}

}  // namespace
}  // namespace sandbox::workers

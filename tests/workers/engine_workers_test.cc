// Engines in worker processes (include/sandbox/isolation.h, docs/security.md#worker-processes):
// the kv engine behind EngineWorkers behaves as it does in process, its sessions keep their
// workspace and snapshots, and a worker's death costs only the calls it was running.
//
// The host faults come from a test-only engine around kv (faulty(), compiled only into this
// test): its own code, which runs in the worker, dereferences null on "crash-host", opens a
// host file on "open-host-file", sleeps for a while on "sleep-host" (a call that stays in
// flight) and for 5 ms on "pause-host" (a call long enough to have its answer announced), and
// grows and shrinks its thread's heap on "churn-host-heap". It also answers "base-made-in" with
// the process that first asked for the engine's image in this process's history: a worker forked
// after the zygote made the image inherits the zygote's answer.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <sandbox/clock.h>
#include <sandbox/isolation.h>
#include <sandbox/protocol.h>
#include <sandbox/testing.h>

#include "base/sanitizers.h"
#include "engines/corpus/session_snapshot.h"
#include "kv_engine.h"
#include "snapshot/delta.h"
#include "snapshot/snapshot_error.h"
#include "support/image_delta.h"
#include "workers/lane_area.h"
#include "workers/worker_connection.h"

namespace sandbox {
namespace {

constexpr const char* kCrashHost = "crash-host";
constexpr const char* kOpenHostFile = "open-host-file";
constexpr const char* kSleepHost = "sleep-host";
constexpr const char* kPauseHost = "pause-host";
constexpr const char* kChurnHostHeap = "churn-host-heap";
constexpr const char* kThrowClassified = "throw-classified";
constexpr const char* kThrowPlain = "throw-plain";
constexpr const char* kBaseMadeIn = "base-made-in";
constexpr const char* kDeferHost = "defer-host";
constexpr const char* kDeferredHost = "deferred-host";

// When the work a "defer-host" run leaves for after its answer (ExecutionRequest::defer) ended,
// in this process: the steady clock's count (the same clock in every process), 0 before it did.
// The work lasts 1 s; "deferred-host" answers the count.
std::atomic<std::int64_t> g_deferred_end{0};

// The first process (in this process's history, which a fork inherits) that asked for the
// engine's base image; 0 before any did.
std::atomic<int> g_base_made_in{0};

// Grows the calling thread's heap past 64 MiB in chunks below any mmap threshold, then frees it
// from the top: glibc deletes the second heap of the thread's arena and shrinks the first, as a
// busy worker's lane does now and then.
void churn_heap() {
  constexpr std::size_t kChunk = std::size_t{60} * 1024;
  constexpr int kChunks = 1600;  // 94 MiB
  std::vector<void*> chunks;
  chunks.reserve(kChunks);
  for (int i = 0; i < kChunks; ++i) {
    void* p = std::malloc(kChunk);
    if (p == nullptr) break;
    *static_cast<volatile char*>(p) = 1;
    chunks.push_back(p);
  }
  for (auto it = chunks.rbegin(); it != chunks.rend(); ++it) std::free(*it);
}

// Host code that faults on request; everything else goes to `inner`.
void fault_if_asked(const std::string& code) {
  if (code == kCrashHost) {
    volatile int* nowhere = nullptr;
    *nowhere = 1;  // SIGSEGV outside any guest memory
  }
  if (code == kOpenHostFile) {
    const int fd = ::open("/etc/hostname", O_RDONLY);  // the seccomp filter kills the worker
    if (fd >= 0) ::close(fd);
  }
  if (code == kSleepHost) std::this_thread::sleep_for(std::chrono::seconds(1));
  if (code == kPauseHost) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  if (code == kChurnHostHeap) churn_heap();
  if (code == kThrowClassified) throw SnapshotError("chunk 0 is torn");
  if (code == kThrowPlain) throw std::runtime_error("plain failure");
}

class FaultySession final : public SessionInstance {
 public:
  explicit FaultySession(std::unique_ptr<SessionInstance> inner) : inner_(std::move(inner)) {}
  std::string cwd() const override { return inner_->cwd(); }
  bool invalid() const override { return inner_->invalid(); }
  SessionOutcome execute(const ExecutionRequest& request) override {
    fault_if_asked(request.code);
    if (request.code == kPauseHost || request.code == kChurnHostHeap) {
      SessionOutcome out;
      out.results.push_back(ResultEntry::of_text("paused"));
      out.cwd = inner_->cwd();
      return out;
    }
    if (request.code == kBaseMadeIn) {
      SessionOutcome out;
      out.results.push_back(ResultEntry::of_text(std::to_string(g_base_made_in.load())));
      out.cwd = inner_->cwd();
      return out;
    }
    return inner_->execute(request);
  }
  bool can_snapshot() const override { return inner_->can_snapshot(); }
  SessionSnapshot snapshot() override { return inner_->snapshot(); }
  void close() override { inner_->close(); }

 private:
  std::unique_ptr<SessionInstance> inner_;
};

// "getenv NAME" answers the worker's value of NAME, or "(unset)".
constexpr std::string_view kGetenv = "getenv ";

Engine faulty(Engine inner) {
  Engine e = inner;
  e.run = [run = inner.run](const ExecutionRequest& request) {
    fault_if_asked(request.code);
    if (request.code == kPauseHost || request.code == kChurnHostHeap) {
      EngineOutcome out;
      out.results.push_back(ResultEntry::of_text("paused"));
      return out;
    }
    if (request.code == kDeferHost || request.code == kDeferredHost) {
      if (request.code == kDeferHost && request.defer) {
        request.defer([] {
          std::this_thread::sleep_for(std::chrono::seconds(1));
          g_deferred_end = std::chrono::steady_clock::now().time_since_epoch().count();
        });
      }
      EngineOutcome out;
      out.results.push_back(ResultEntry::of_text(std::to_string(g_deferred_end.load())));
      return out;
    }
    if (request.code.starts_with(kGetenv)) {
      const char* value = std::getenv(request.code.substr(kGetenv.size()).c_str());
      EngineOutcome out;
      out.results.push_back(ResultEntry::of_text(value ? value : "(unset)"));
      return out;
    }
    return run(request);
  };
  Sessions s = *inner.sessions;
  s.boot = [boot = inner.sessions->boot](const SessionOptions& o) {
    return std::unique_ptr<SessionInstance>(std::make_unique<FaultySession>(boot(o)));
  };
  s.restore = [restore = inner.sessions->restore](const SessionOptions& o,
                                                  const SnapshotSource& src) {
    return std::unique_ptr<SessionInstance>(std::make_unique<FaultySession>(restore(o, src)));
  };
  s.base = [base = inner.sessions->base] {
    int none = 0;
    g_base_made_in.compare_exchange_strong(none, static_cast<int>(::getpid()));
    // As an interpreter's boot does, a large block comes and goes: freeing it raises malloc's
    // mmap and trim thresholds in the zygote, and the workers it forks later inherit them.
    constexpr std::size_t kBootBlock = std::size_t{16} << 20;
    if (void* block = std::malloc(kBootBlock)) {
      *static_cast<volatile char*>(block) = 1;
      std::free(block);
    }
    return base();
  };
  e.sessions = s;
  return e;
}

// The pool's zygote is a fresh copy of this test program (WorkerOptions::engine_names), as in
// sandboxd: main() below serves it. (A zygote forked from this multi-threaded test process would
// also work, but ThreadSanitizer cannot follow threads started after such a fork.)
constexpr const char* kFaultyKv = "faulty-kv";
// kv with fuel to spare and a 300 ms call timeout: "spin" ends at its deadline.
constexpr const char* kSlowKv = "slow-kv";
constexpr auto kSlowKvTimeout = std::chrono::milliseconds(300);
Engine make_slow_kv() {
  return engines::make_kv_engine_with(std::uint64_t{1} << 50, kSlowKvTimeout);
}

std::shared_ptr<EngineWorkers> start_workers(std::size_t n = 2) {
  std::vector<Engine> engines;
  engines.push_back(faulty(engines::make_kv_engine()));
  return EngineWorkers::start(std::move(engines),
                              WorkerOptions{.workers = n, .engine_names = {kFaultyKv}});
}

// Waits (up to 10 s) for `done`.
template <typename F>
bool eventually(F done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

std::string text_of(const EngineOutcome& o) {
  if (o.results.empty() || !o.results[0].text) return "";
  return *o.results[0].text;
}

using testing_corpus::SnapshotCopy;
using workers::kMaxIdleLanes;

TEST(EngineWorkers, IsolationNamesParse) {
  EXPECT_EQ(parse_isolation("process"), Isolation::kProcess);
  EXPECT_EQ(parse_isolation("thread"), Isolation::kThread);
  EXPECT_EQ(parse_isolation("threads"), std::nullopt);
  EXPECT_EQ(isolation_name(Isolation::kProcess), "process");
}

// The zygote is a fresh program: of the server's environment, workers see only the
// write-tracking knobs (workers::kWorkerEnvironment), so SANDBOX_HOT_PAGES=0 in a benchmark
// reaches the processes that track writes and a server's secrets do not.
TEST(EngineWorkers, WorkersGetTheWriteTrackingVariablesAndNothingElse) {
  ASSERT_EQ(::setenv("SANDBOX_HOT_PAGES", "7", 1), 0);
  ASSERT_EQ(::setenv("SANDBOX_TEST_SECRET", "hunter2", 1), 0);
  ASSERT_EQ(::unsetenv("SANDBOX_WRITE_TRACKING"), 0);
  auto workers = start_workers(1);
  ::unsetenv("SANDBOX_HOT_PAGES");
  ::unsetenv("SANDBOX_TEST_SECRET");
  const Engine engine = workers->engine(0);
  EXPECT_EQ(text_of(engine.run({"getenv SANDBOX_HOT_PAGES", {}})), "7");
  EXPECT_EQ(text_of(engine.run({"getenv SANDBOX_WRITE_TRACKING", {}})), "(unset)");
  EXPECT_EQ(text_of(engine.run({"getenv SANDBOX_TEST_SECRET", {}})), "(unset)");
  EXPECT_EQ(text_of(engine.run({"getenv PATH", {}})), "(unset)");
}

TEST(EngineWorkers, AStatelessRunGivesWhatItGivesInProcess) {
  auto workers = start_workers();
  const Engine local = engines::make_kv_engine();
  const Engine remote = workers->engine(0);
  EXPECT_EQ(remote.language, local.language);
  EXPECT_EQ(remote.build, local.build);
  for (const char* code : {"set x 41\nincr x", "print hello\nget nope", "fail boom"}) {
    const EngineOutcome a = local.run({code, {}});
    const EngineOutcome b = remote.run({code, {}});
    EXPECT_EQ(text_of(a), text_of(b)) << code;
    EXPECT_EQ(a.logs.stdout_lines, b.logs.stdout_lines) << code;
    ASSERT_EQ(a.error.has_value(), b.error.has_value()) << code;
    if (a.error) {
      EXPECT_EQ(a.error->name, b.error->name);
      EXPECT_EQ(a.error->message, b.error->message);
      EXPECT_EQ(a.error->traceback, b.error->traceback);
    }
    ASSERT_TRUE(b.usage);
    EXPECT_EQ(a.usage->fuel_consumed, b.usage->fuel_consumed) << code;
  }
  // A limit stays a limit: run() throws it, in process as in a worker (engine.h, rule 2).
  EXPECT_THROW(static_cast<void>(local.run({"spin", {}})), ExecutionLimitError);
  EXPECT_THROW(static_cast<void>(remote.run({"spin", {}})), ExecutionLimitError);
}

// Work an engine leaves for after a stateless run's answer (ExecutionRequest::defer; the
// embedded engines' reset of the instance) is done in the worker once the answer has left
// (docs/security.md#work-after-the-answer): the answer of a run whose deferred work lasts 1 s
// arrives before that work ends. Done before the answer, it would end first.
TEST(EngineWorkers, WorkAnEngineDefersIsDoneAfterTheAnswerIsSent) {
  auto workers = start_workers(1);
  const Engine engine = workers->engine(0);
  EXPECT_EQ(text_of(engine.run({kDeferHost, {}})), "0");
  const std::int64_t answered = std::chrono::steady_clock::now().time_since_epoch().count();
  std::int64_t ended = 0;
  for (int i = 0; i < 1000 && ended == 0; ++i) {  // on the busy lane or another: up to 10 s
    ended = std::stoll(text_of(engine.run({kDeferredHost, {}})));
    if (ended == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_NE(ended, 0) << "the deferred work never ended";
  EXPECT_LT(answered, ended) << "the answer waited for the work deferred past it";
}

// A ClassifiedError thrown in the worker is answered as it would be in process: the host gets
// an ApiError of its kind with its wire message (docs/errors.md#exceptions-at-the-boundaries);
// any other failure stays a plain runtime_error.
TEST(EngineWorkers, AClassifiedErrorInAWorkerKeepsItsKindAndMessage) {
  auto workers = start_workers(1);
  const Engine engine = workers->engine(0);
  try {
    static_cast<void>(engine.run({kThrowClassified, {}}));
    ADD_FAILURE() << "run() must throw";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInternal);
    EXPECT_STREQ(e.what(), "Stored snapshot is unreadable: chunk 0 is torn");
    EXPECT_EQ(error_response_for(e, 0).http_status, 500);
  }
  try {
    static_cast<void>(engine.run({kThrowPlain, {}}));
    ADD_FAILURE() << "run() must throw";
  } catch (const ApiError& e) {
    ADD_FAILURE() << "a plain failure must not carry a kind: " << e.what();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "plain failure");
    EXPECT_EQ(error_response_for(e, 0).http_status, 502);
  }
  // The worker is still there for the next call.
  EXPECT_EQ(text_of(engine.run({"set x 1\nget x", {}})), "1");
}

TEST(EngineWorkers, WorkersRunConfinedAndApartFromTheServer) {
  auto workers = start_workers(3);
  EXPECT_EQ(workers->engine(0).run({"incr n", {}}).results.size(), 1u);
  ASSERT_TRUE(eventually([&] { return !workers->stats().confinement.empty(); }));
  const EngineWorkers::Stats stats = workers->stats();
  EXPECT_EQ(stats.workers, 3u);
  EXPECT_EQ(stats.pids.size(), 3u);
  for (const int pid : stats.pids) EXPECT_NE(pid, ::getpid());
  EXPECT_NE(stats.confinement.find("seccomp"), std::string::npos) << stats.confinement;
  EXPECT_NE(stats.confinement.find("no_new_privs"), std::string::npos) << stats.confinement;
}

TEST(EngineWorkers, PassesTheEngineConformanceSuite) {
  auto workers = start_workers();
  testing::run_engine_conformance(
      workers->engine(0),
      {.programs = {.simple = {.code = "incr x", .expect_result_text = "1"},
                    .error = {.code = "fail nope"},
                    .stateful = testing::StatefulProgram{.define = "set counter 1\nincr counter",
                                                         .use = "get counter",
                                                         .expect_result_text = "2"}}});
}

TEST(EngineWorkers, OutputIsStreamedWhileTheGuestRuns) {
  auto workers = start_workers();
  std::string seen;
  ExecutionRequest request{"print one\nprint two", {}};
  request.on_output = [&](OutputStream stream, std::string_view text) {
    EXPECT_EQ(stream, OutputStream::kStdout);
    seen += text;
  };
  const EngineOutcome out = workers->engine(0).run(request);
  EXPECT_EQ(seen, "one\ntwo\n");
  EXPECT_EQ(out.logs.stdout_lines, (std::vector<std::string>{"one", "two"}));
}

TEST(EngineWorkers, ASessionReadsAndWritesTheServersWorkspaceMirror) {
  auto workers = start_workers();
  ManualClock clock(1'800'000'000'000);
  Workspace mirror(clock);
  mirror.write("/workspace/in.txt", "from the server");
  auto session = workers->engine(0).sessions->boot(SessionOptions{.workspace = &mirror});
  SessionOutcome read = session->execute({"read /workspace/in.txt", {}});
  EXPECT_EQ(text_of(read), "from the server");
  clock.advance(5);
  const auto before = std::chrono::steady_clock::now();
  SessionOutcome wrote = session->execute({"write /workspace/out.txt from the guest", {}});
  const std::int64_t call_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::steady_clock::now() - before)
                                   .count();
  ASSERT_FALSE(wrote.error) << wrote.error->message;
  EXPECT_EQ(mirror.read("/workspace/out.txt").content, "from the guest");
  // Written with the server's clock at the start of the call, advanced by the time the worker
  // has spent in the call so far (never more than the call took as the server saw it): a write
  // 3 s into a long call carries the time it would carry in one process. Under a sanitizer the
  // write may come a millisecond or more into the call, so the time is a window, not one value.
  const std::int64_t written_at = mirror.stat("/workspace/out.txt").updated_at;
  EXPECT_GE(written_at, 1'800'000'000'005);
  EXPECT_LE(written_at, 1'800'000'000'005 + call_ms);
  // The server changes the mirror between calls: the next call sees it.
  mirror.write("/workspace/in.txt", "changed");
  mirror.remove("/workspace/out.txt", false, false);
  EXPECT_EQ(text_of(session->execute({"read /workspace/in.txt", {}})), "changed");
  const SessionOutcome gone = session->execute({"read /workspace/out.txt", {}});
  ASSERT_TRUE(gone.error);
  EXPECT_EQ(gone.error->name, "OSError");
  // A second instance on the same mirror shares it.
  auto other = workers->engine(0).sessions->boot(SessionOptions{.workspace = &mirror});
  EXPECT_EQ(text_of(other->execute({"read /workspace/in.txt", {}})), "changed");
}

TEST(EngineWorkers, ASnapshotRestoresInAnotherInstanceWithItsMemory) {
  auto workers = start_workers();
  SystemClock clock;
  Workspace mirror(clock);
  auto session = workers->engine(0).sessions->boot(SessionOptions{.workspace = &mirror});
  ASSERT_FALSE(session->execute({"set greeting hello", {}}).error);
  const SnapshotCopy copy = SnapshotCopy::of(*session);
  auto restored =
      workers->engine(0).sessions->restore(SessionOptions{.workspace = &mirror}, copy.source());
  EXPECT_EQ(text_of(restored->execute({"get greeting", {}})), "hello");
  // The server's copy of the memory follows the worker's: a snapshot of the restored instance
  // holds the new value.
  ASSERT_FALSE(restored->execute({"set greeting again", {}}).error);
  const SnapshotCopy second = SnapshotCopy::of(*restored);
  auto third =
      workers->engine(0).sessions->restore(SessionOptions{.workspace = &mirror}, second.source());
  EXPECT_EQ(text_of(third->execute({"get greeting", {}})), "again");
}

// A restore's blocks come in pieces of kRestorePieceBlocks, each in the lane's area while there is
// room after the pieces before (docs/security.md#restore-overlap); 2 MiB written are 512 blocks of
// 4 KiB, more than the area holds, and the pieces past it travel in their frames.
TEST(EngineWorkers, ARestoreWhoseBlocksDoNotFitInTheLaneAreaTravelsInTheFrame) {
  static_assert(2 * (std::size_t{1} << 20) > workers::kLaneAreaBytes);
  auto workers = start_workers();
  SystemClock clock;
  Workspace mirror(clock);
  auto session = workers->engine(0).sessions->boot(SessionOptions{.workspace = &mirror});
  ASSERT_FALSE(session->execute({"alloc 2\nset greeting hello", {}}).error);
  const std::string filled = text_of(session->execute({"filled", {}}));
  ASSERT_EQ(filled, std::to_string(2 * ((1 << 20) - 4)));  // but for the link of each MiB
  const SnapshotCopy copy = SnapshotCopy::of(*session);
  auto restored =
      workers->engine(0).sessions->restore(SessionOptions{.workspace = &mirror}, copy.source());
  EXPECT_EQ(text_of(restored->execute({"get greeting", {}})), "hello");
  // The worker's memory holds every block: the 2 MiB `alloc` filled with 0xab came back whole,
  // and so did the server's copy of it.
  EXPECT_EQ(text_of(restored->execute({"filled", {}})), filled);
  const SnapshotCopy second = SnapshotCopy::of(*restored);
  constexpr auto kFilled = static_cast<std::ptrdiff_t>((2 << 20) - 16);
  EXPECT_GE(std::count(copy.memory.begin(), copy.memory.end(), 0xab), kFilled);
  EXPECT_GE(std::count(second.memory.begin(), second.memory.end(), 0xab), kFilled);
}

// The CPUs a thread may run on, as /proc's status file at `path` lists them ("" when unread).
std::string allowed_cpus(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Cpus_allowed_list:", 0) == 0)
      return line.substr(line.find_first_of("0123456789"));
  }
  return "";
}

// `copy` as a delta from `base` (the pages that differ from it), as the server stores it; counts
// the 4 KiB blocks that differ into `blocks`.
SnapshotSource delta_source(const SnapshotCopy& copy, const SnapshotBase& base,
                            std::size_t& blocks) {
  SnapshotSource source = copy.source();
  source.base_fingerprint = base.fingerprint;
  std::vector<std::uint32_t> delta;
  testing_support::for_each_block_off_the_image(
      base, source.memory_pages,
      [&](std::uint32_t p) { return copy.memory.data() + std::size_t{p} * kWasmPageBytes; },
      [&](std::uint32_t p, std::uint32_t, const std::uint8_t*) {
        if (delta.empty() || delta.back() != p) delta.push_back(p);
        ++blocks;
      });
  source.base_delta_pages = delta;
  return source;
}

// One worker, its engine's base image, and a session booted over a mirror.
class DeltaRestore : public ::testing::Test {
 protected:
  void SetUp() override {
    base = engine.sessions->base();
    ASSERT_TRUE(base);
    session = engine.sessions->boot(SessionOptions{.workspace = &mirror});
  }
  std::unique_ptr<SessionInstance> restore(const SnapshotSource& source) {
    return engine.sessions->restore(SessionOptions{.workspace = &mirror}, source);
  }

  std::shared_ptr<EngineWorkers> workers = start_workers(1);
  const Engine engine = workers->engine(0);
  std::shared_ptr<const SnapshotBase> base;
  SystemClock clock;
  Workspace mirror{clock};
  std::unique_ptr<SessionInstance> session;
};

// A restore from a delta of no page (a memory as the image holds it) sends the call alone, as
// one empty piece (docs/security.md#restore-overlap), and restores the image.
TEST_F(DeltaRestore, ARestoreOfNoPageSendsTheCallAlone) {
  const SnapshotCopy copy = SnapshotCopy::of(*session);
  std::size_t blocks = 0;
  const SnapshotSource source = delta_source(copy, *base, blocks);
  ASSERT_TRUE(source.base_delta_pages->empty());
  auto restored = restore(source);
  EXPECT_TRUE(restored->execute({"get greeting", {}}).error);  // the image sets nothing
  ASSERT_FALSE(restored->execute({"set greeting hello", {}}).error);
  // The server's copy holds the image: a restore from its snapshot holds what was set since.
  const SnapshotCopy second = SnapshotCopy::of(*restored);
  auto again = restore(delta_source(second, *base, blocks));
  EXPECT_EQ(text_of(again->execute({"get greeting", {}})), "hello");
  EXPECT_EQ(workers->stats().lost, 0u);
}

// A restore from a delta (SnapshotSource::base_delta_pages) hands the engine its blocks as they
// arrive (SnapshotSource::next_delta_blocks) while the server still reads the snapshot
// (docs/security.md#restore-overlap): over 500 blocks, in more pieces than the lane's area holds,
// all come back, in the worker's memory and in the server's copy.
TEST_F(DeltaRestore, ALongOneComesInPiecesAndRestoresEveryBlock) {
  ASSERT_FALSE(session->execute({"alloc 2\nset greeting hello", {}}).error);
  const std::string filled = text_of(session->execute({"filled", {}}));
  const SnapshotCopy copy = SnapshotCopy::of(*session);
  std::size_t blocks = 0;
  const SnapshotSource source = delta_source(copy, *base, blocks);
  ASSERT_FALSE(source.base_delta_pages->empty());
  ASSERT_GT(blocks, workers::kLaneAreaBytes / workers::kChangeBlockBytes);
  auto restored = restore(source);
  EXPECT_EQ(text_of(restored->execute({"get greeting", {}})), "hello");
  EXPECT_EQ(text_of(restored->execute({"filled", {}})), filled);
  const SnapshotCopy second = SnapshotCopy::of(*restored);
  constexpr auto kFilled = static_cast<std::ptrdiff_t>((2 << 20) - 16);
  EXPECT_GE(std::count(second.memory.begin(), second.memory.end(), 0xab), kFilled);
  // The restore left the instance as the snapshot was: a restore from its own snapshot again
  // holds the same.
  auto again = restore(second.source());
  EXPECT_EQ(text_of(again->execute({"filled", {}})), filled);
  EXPECT_EQ(workers->stats().lost, 0u);
  // A restore's thread that moved off its server's CPU got its CPUs back: every thread of the
  // worker may run where this process may.
  const std::string ours = allowed_cpus("/proc/self/status");
  ASSERT_FALSE(ours.empty());
  for (const int pid : workers->stats().pids) {
    const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
    for (const auto& task : std::filesystem::directory_iterator(tasks)) {
      EXPECT_EQ(allowed_cpus(task.path() / "status"), ours) << task.path();
    }
  }
}

// The parent of process `pid` (from /proc/PID/stat), or 0.
int parent_of(int pid) {
  std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (f == nullptr) return 0;
  int ppid = 0;
  // pid (comm) state ppid: comm is this test program's name, without spaces or parentheses.
  if (std::fscanf(f, "%*d (%*[^)]) %*c %d", &ppid) != 1) ppid = 0;
  std::fclose(f);
  return ppid;
}

// docs/security.md#answers-announced: a worker announces the answer of a step whose engine work
// lasted kAnnounceAfter or more, and of no stateless run; the step's answer is whole either way.
TEST(EngineWorkers, AWorkerAnnouncesTheAnswerOfALongStepAndOfNoStatelessRun) {
  auto workers = start_workers(1);
  SystemClock clock;
  Workspace mirror(clock);
  auto session = workers->engine(0).sessions->boot(SessionOptions{.workspace = &mirror});
  ASSERT_FALSE(session->execute({"set greeting hello", {}}).error);
  std::size_t before = workers::answers_awaited_awake();
  EXPECT_EQ(text_of(session->execute({kPauseHost, {}})), "paused");
  EXPECT_EQ(workers::answers_awaited_awake(), before + 1);
  EXPECT_EQ(text_of(session->execute({"get greeting", {}})), "hello");
  // Its snapshot came with the answer, after the announcement.
  const SnapshotCopy copy = SnapshotCopy::of(*session);
  auto restored =
      workers->engine(0).sessions->restore(SessionOptions{.workspace = &mirror}, copy.source());
  EXPECT_EQ(text_of(restored->execute({"get greeting", {}})), "hello");
  before = workers::answers_awaited_awake();
  EXPECT_EQ(text_of(workers->engine(0).run({kPauseHost, {}})), "paused");
  EXPECT_EQ(workers::answers_awaited_awake(), before);
  EXPECT_EQ(workers->stats().lost, 0u);
}

// docs/security.md#calls-announced: after a long step (its call lasted kWakeAfterStep or more),
// the session tells its worker that a call is coming as soon as the server hears of the next
// request (expect_call): a lane is woken, and the call that follows is answered on it, whether it
// comes at once or after the worker's thread stopped looking for it. After a short step nothing
// is woken.
TEST(EngineWorkers, AfterALongStepTheWorkerHearsOfTheNextCallFirst) {
  auto workers = start_workers(1);
  SystemClock clock;
  Workspace mirror(clock);
  auto session = workers->engine(0).sessions->boot(SessionOptions{.workspace = &mirror});
  for (int i = 0; i < 5; ++i) {
    const auto began = std::chrono::steady_clock::now();
    ASSERT_FALSE(session->execute({"set greeting hello", {}}).error);
    const auto took = std::chrono::steady_clock::now() - began;
    const std::size_t before = workers::lanes_woken();
    session->expect_call();
    // The call lasted no longer than the execute around it (a slow host may make it long).
    if (took < workers::kWakeAfterStep) {
      EXPECT_EQ(workers::lanes_woken(), before);
    }
  }
  EXPECT_EQ(text_of(session->execute({kPauseHost, {}})), "paused");
  std::size_t before = workers::lanes_woken();
  session->expect_call();
  EXPECT_EQ(workers::lanes_woken(), before + 1);
  EXPECT_EQ(text_of(session->execute({"get greeting", {}})), "hello");
  EXPECT_EQ(text_of(session->execute({kPauseHost, {}})), "paused");
  session->expect_call();
  std::this_thread::sleep_for(20 * workers::kWokenLaneSpin);
  EXPECT_EQ(text_of(session->execute({"get greeting", {}})), "hello");
  // A hint no execute follows: the lane stays woken for the session's next call, its close.
  EXPECT_EQ(text_of(session->execute({kPauseHost, {}})), "paused");
  session->expect_call();
  const SnapshotCopy copy = SnapshotCopy::of(*session);
  session->expect_call();
  session->close();
  auto restored =
      workers->engine(0).sessions->restore(SessionOptions{.workspace = &mirror}, copy.source());
  EXPECT_EQ(text_of(restored->execute({"get greeting", {}})), "hello");
  EXPECT_EQ(workers->stats().lost, 0u);
}

TEST(EngineImages, EveryWorkerStartsWithTheImageTheZygoteMade) {
  auto workers = start_workers(2);
  const std::vector<int> before = workers->stats().pids;
  SystemClock clock;
  Workspace a(clock);
  Workspace b(clock);
  // Two mirrors: two homes, one in each worker.
  auto first = workers->engine(0).sessions->boot(SessionOptions{.workspace = &a});
  auto second = workers->engine(0).sessions->boot(SessionOptions{.workspace = &b});
  const std::vector<int> pids = workers->stats().pids;
  ASSERT_EQ(pids.size(), 2u);
  ASSERT_NE(pids[0], pids[1]);
  // The workers that ran before the engine's image was made, holding no instance, were replaced.
  for (const int pid : pids) {
    EXPECT_EQ(std::count(before.begin(), before.end(), pid), 0) << pid;
  }
  // Each found the image made by their parent, the zygote: neither made its own.
  const std::string made_first = text_of(first->execute({kBaseMadeIn, {}}));
  const std::string made_second = text_of(second->execute({kBaseMadeIn, {}}));
  EXPECT_EQ(made_first, std::to_string(parent_of(pids[0])));
  EXPECT_EQ(made_second, std::to_string(parent_of(pids[1])));
  EXPECT_NE(made_first, std::to_string(::getpid()));
  // The sessions run as before: the image is the one the server's copy starts from.
  ASSERT_FALSE(first->execute({"set x 41", {}}).error);
  EXPECT_EQ(text_of(first->execute({"incr x", {}})), "42");
  EXPECT_EQ(workers->stats().lost, 0u);
}

// Regression (load test, SIGSYS): glibc reads /proc/sys/vm/overcommit_memory the first time a
// thread's heap shrinks. Each worker made it do so before loading its filter, but in a worker
// forked after the zygote had made an image that no longer shrank a heap (the image's boot had
// raised malloc's trim threshold), and the first lane to free enough memory under load opened
// the file and got its worker killed with every call on it.
TEST(EngineImages, AWorkerForkedAfterTheImageWasMadeShrinksAHeapWithoutBeingKilled) {
  auto workers = start_workers(2);
  SystemClock clock;
  Workspace mirror(clock);
  auto session = workers->engine(0).sessions->boot(SessionOptions{.workspace = &mirror});
  ASSERT_FALSE(session->execute({"set x 1", {}}).error);
  const std::vector<int> pids = workers->stats().pids;
  // Lanes run on threads of their own: four calls at once, each a context of its own and then
  // a stateless run.
  std::vector<std::thread> lanes;
  std::atomic<int> churned{0};
  for (int t = 0; t < 4; ++t) {
    lanes.emplace_back([&] {
      try {
        Workspace own(clock);
        auto context = workers->engine(0).sessions->boot(SessionOptions{.workspace = &own});
        for (int i = 0; i < 3; ++i) {
          if (text_of(context->execute({kChurnHostHeap, {}})) == "paused") ++churned;
          if (text_of(workers->engine(0).run({kChurnHostHeap, {}})) == "paused") ++churned;
        }
      } catch (const WorkerLostError& e) {
        ADD_FAILURE() << e.what();
      }
    });
  }
  for (auto& t : lanes) t.join();
  EXPECT_EQ(churned.load(), 24);
  EXPECT_EQ(workers->stats().lost, 0u) << workers->stats().last_exit;
  EXPECT_EQ(workers->stats().pids, pids);
  EXPECT_EQ(text_of(session->execute({"incr x", {}})), "2");
}

// A guest call past its deadline ends as a time limit in a worker too: the watchdog interrupts
// it with pthread_sigqueue (rt_tgsigqueueinfo), which the worker's seccomp filter used to kill
// the worker for. And the worker is forked after the zygote booted the engine, its watchdog
// armed for the boot, so its own watchdog is one it started itself.
TEST(EngineImages, ACallPastItsDeadlineInAWorkerEndsAsATimeLimitNotAWorkerDeath) {
  if (kUnderThreadSanitizer) {
    // The same holds in process (tests/wasm/limits_test.cc, Deadline.*, not run under it).
    GTEST_SKIP() << "ThreadSanitizer holds a signal until its thread makes a call it intercepts, "
                    "which a spinning guest never does: no deadline fires under it";
  }
  std::vector<Engine> engines;
  engines.push_back(make_slow_kv());
  auto workers = EngineWorkers::start(std::move(engines),
                                      WorkerOptions{.workers = 1, .engine_names = {kSlowKv}});
  ASSERT_NE(workers->engine(0).sessions->base(), nullptr);
  auto session = workers->engine(0).sessions->boot(SessionOptions{});
  ASSERT_EQ(text_of(session->execute({"incr n", {}})), "1");
  for (int i = 0; i < 2; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const SessionOutcome spun = session->execute({"spin", {}});
    const auto took = std::chrono::steady_clock::now() - start;
    ASSERT_TRUE(spun.error);
    EXPECT_EQ(spun.error->message, "Execution time limit exceeded");
    EXPECT_GE(took, kSlowKvTimeout);
    EXPECT_LT(took, std::chrono::seconds(20));
    EXPECT_TRUE(session->invalid());
    session = workers->engine(0).sessions->boot(SessionOptions{});
  }
  // A stateless run is stopped the same way.
  EXPECT_THROW((void)workers->engine(0).run({"spin", {}}), ExecutionLimitError);
  EXPECT_EQ(text_of(workers->engine(0).run({"incr n", {}})), "1");
  EXPECT_EQ(workers->stats().lost, 0u);
  // The first worker, the one that sent the base, and the first one's replacement forked after
  // the zygote made the image; none since.
  EXPECT_EQ(workers->stats().started, 3u);
}

// ---- A worker's death -----------------------------------------------------------------------

TEST(WorkerLoss, ACrashInHostCodeFailsOnlyItsOwnCall) {
  auto workers = start_workers(2);
  const Engine engine = workers->engine(0);
  // One worker busy with a long run (a loop stopped by the fuel limit) while the other crashes.
  std::atomic<bool> busy_ok{false};
  std::thread busy([&] {
    try {
      static_cast<void>(engine.run({"spin", {}}));
    } catch (const ExecutionLimitError&) {
      busy_ok = true;
    }
  });
  while (workers->stats().in_flight == 0) std::this_thread::yield();
  EXPECT_THROW(static_cast<void>(engine.run({kCrashHost, {}})), WorkerLostError);
  busy.join();
  EXPECT_TRUE(busy_ok);
  ASSERT_TRUE(eventually([&] { return workers->stats().lost == 1; }));
  ASSERT_TRUE(eventually([&] { return !workers->stats().last_exit.empty(); }));
  EXPECT_NE(workers->stats().last_exit.find("killed by"), std::string::npos)
      << workers->stats().last_exit;
  // The pool replaced the worker: every run works again.
  for (int i = 0; i < 4; ++i) EXPECT_EQ(text_of(engine.run({"incr n", {}})), "1");
  EXPECT_EQ(workers->stats().pids.size(), 2u);
}

TEST(WorkerLoss, OpeningAHostFileGetsTheWorkerKilledBySeccomp) {
  auto workers = start_workers(2);
  const Engine engine = workers->engine(0);
  EXPECT_THROW(static_cast<void>(engine.run({kOpenHostFile, {}})), WorkerLostError);
  ASSERT_TRUE(eventually([&] { return !workers->stats().last_exit.empty(); }));
  EXPECT_NE(workers->stats().last_exit.find("SIGSYS"), std::string::npos)
      << workers->stats().last_exit;
  EXPECT_EQ(text_of(engine.run({"incr n", {}})), "1");
}

TEST(WorkerLoss, ASessionOfADeadWorkerIsInvalidAndItsSnapshotRestoresInAnother) {
  auto workers = start_workers(2);
  SystemClock clock;
  Workspace mirror(clock);
  auto session = workers->engine(0).sessions->boot(SessionOptions{.workspace = &mirror});
  ASSERT_FALSE(session->execute({"set kept 7", {}}).error);
  const SnapshotCopy copy = SnapshotCopy::of(*session);
  EXPECT_THROW(session->execute({kCrashHost, {}}), WorkerLostError);
  EXPECT_TRUE(session->invalid());
  EXPECT_FALSE(session->can_snapshot());
  session.reset();
  auto restored =
      workers->engine(0).sessions->restore(SessionOptions{.workspace = &mirror}, copy.source());
  EXPECT_EQ(text_of(restored->execute({"get kept", {}})), "7");
}

// A step whose answer arrived before its worker died is not lost: the answer carried the
// step's changes, so the round is stored from the server's copy (docs/contexts.md#worker-loss);
// only then is the instance invalid.
TEST(WorkerLoss, AStepAnsweredBeforeItsWorkerDiedIsStillStored) {
  auto workers = start_workers(2);
  SystemClock clock;
  Workspace mirror(clock);
  auto session = workers->engine(0).sessions->boot(SessionOptions{.workspace = &mirror});
  ASSERT_FALSE(session->execute({"set kept 7", {}}).error);
  for (const int pid : workers->stats().pids) ::kill(pid, SIGKILL);
  ASSERT_TRUE(eventually([&] { return workers->stats().lost >= 2; }));
  EXPECT_FALSE(session->invalid());
  ASSERT_TRUE(session->can_snapshot());
  const SnapshotCopy copy = SnapshotCopy::of(*session);
  EXPECT_TRUE(session->invalid());
  EXPECT_THROW(session->execute({"get kept", {}}), WorkerLostError);
  session.reset();
  auto restored =
      workers->engine(0).sessions->restore(SessionOptions{.workspace = &mirror}, copy.source());
  EXPECT_EQ(text_of(restored->execute({"get kept", {}})), "7");
}

// Regression (ReHomedWorkspaceKeptForever): a mirror whose worker died moved to a new worker
// still counting the dead worker's instances, so it was never forgotten.
TEST(WorkerLoss, AMirrorMovedAfterItsWorkerDiedIsForgottenWhenItsLastInstanceCloses) {
  auto workers = start_workers(2);
  SystemClock clock;
  Workspace mirror(clock);
  auto first = workers->engine(0).sessions->boot(SessionOptions{.workspace = &mirror});
  EXPECT_THROW(first->execute({kCrashHost, {}}), WorkerLostError);
  auto second = workers->engine(0).sessions->boot(SessionOptions{.workspace = &mirror});
  EXPECT_EQ(text_of(second->execute({"incr n", {}})), "1");
  EXPECT_EQ(workers->stats().workspaces, 1u);
  first.reset();
  second.reset();
  EXPECT_EQ(workers->stats().workspaces, 0u);
}

TEST(WorkerLoss, KillingEveryWorkerUnderLoadFailsOnlyTheCallsInFlight) {
  auto workers = start_workers(2);
  const Engine engine = workers->engine(0);
  std::atomic<bool> stop{false};
  std::atomic<int> ok{0}, lost{0}, wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      while (!stop) {
        try {
          const EngineOutcome out = engine.run({"set x 20\nincr x", {}});
          (text_of(out) == "21" ? ok : wrong)++;
        } catch (const WorkerLostError&) {
          ++lost;
        }
      }
    });
  }
  // Sessions whose frames are large (a few MiB of written pages at each snapshot and restore),
  // so that kills land while frames are half sent in either direction.
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      SystemClock clock;
      Workspace mirror(clock);
      while (!stop) {
        try {
          auto session = engine.sessions->boot(SessionOptions{.workspace = &mirror});
          const SessionOutcome out = session->execute({"alloc 4\nset y 9", {}});
          if (out.error) {
            ++wrong;
            continue;
          }
          const SnapshotCopy copy = SnapshotCopy::of(*session);
          auto restored =
              engine.sessions->restore(SessionOptions{.workspace = &mirror}, copy.source());
          (text_of(restored->execute({"get y", {}})) == "9" ? ok : wrong)++;
        } catch (const WorkerLostError&) {
          ++lost;
        }
      }
    });
  }
  ASSERT_TRUE(eventually([&] { return ok > 20; }));
  for (int round = 0; round < 3; ++round) {
    for (const int pid : workers->stats().pids) ::kill(pid, SIGKILL);
    const int before = ok;
    ASSERT_TRUE(eventually([&] { return ok > before + 20; })) << "no progress after the kill";
  }
  stop = true;
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_GE(workers->stats().lost, 2u);
  EXPECT_EQ(text_of(engine.run({"incr n", {}})), "1");
}

// ---- Lanes (docs/security.md#worker-processes) ---------------------------------------------

// Descriptors open in this process (the server): each lane holds one.
std::size_t open_fds() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd"))
    ++n;
  return n;
}

TEST(Lanes, ManyConcurrentCallsOnOneWorkerAreEachAnsweredWithTheirOwnResultAndOutput) {
  auto workers = start_workers(1);
  const Engine engine = workers->engine(0);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const int value = t * 1000 + i;
        std::string seen;
        ExecutionRequest request{
            "print " + std::to_string(value) + "\nset x " + std::to_string(value) + "\nincr x", {}};
        request.on_output = [&](OutputStream, std::string_view text) { seen += text; };
        const EngineOutcome out = engine.run(request);
        if (text_of(out) != std::to_string(value + 1) || seen != std::to_string(value) + "\n") {
          ++wrong;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(workers->stats().lost, 0u);
  EXPECT_EQ(workers->stats().in_flight, 0u);
}

TEST(Lanes, ACallWhoseOutputHandlerThrewDoesNotLeaveItsLaneToTheNext) {
  auto workers = start_workers(1);
  const Engine engine = workers->engine(0);
  EXPECT_EQ(text_of(engine.run({"incr n", {}})), "1");  // a lane, now idle
  const std::size_t before = open_fds();
  for (int i = 0; i < 5; ++i) {
    // The worker goes on sending this call's output and answer on the lane after the server gave
    // up on it: were the lane kept, the next call would read them as its own.
    ExecutionRequest request{"print a\nprint b\nprint c\nset x 5\nincr x", {}};
    request.on_output = [](OutputStream, std::string_view) {
      throw std::runtime_error("the caller went away");
    };
    EXPECT_THROW(static_cast<void>(engine.run(request)), std::runtime_error);
    EXPECT_EQ(text_of(engine.run({"set y 1\nincr y", {}})), "2");
  }
  EXPECT_EQ(workers->stats().lost, 0u);
  // The lanes of the abandoned calls were closed, not kept.
  EXPECT_EQ(open_fds(), before);
}

TEST(Lanes, AWorkerKilledMidCallFailsExactlyTheCallsInFlight) {
  auto workers = start_workers(1);
  const Engine engine = workers->engine(0);
  EXPECT_EQ(text_of(engine.run({"incr n", {}})), "1");
  const int pid = workers->stats().pids.at(0);
  constexpr int kCalls = 4;
  std::atomic<int> lost{0}, other{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kCalls; ++t) {
    threads.emplace_back([&] {
      try {
        static_cast<void>(engine.run({kSleepHost, {}}));
        ++other;
      } catch (const WorkerLostError& e) {
        if (std::string(e.what()).find("died") != std::string::npos) ++lost;
      } catch (...) {
        ++other;
      }
    });
  }
  ASSERT_TRUE(eventually([&] { return workers->stats().in_flight == kCalls; }));
  ::kill(pid, SIGKILL);
  for (auto& t : threads) t.join();
  EXPECT_EQ(lost, kCalls);
  EXPECT_EQ(other, 0);
  // The next calls go to the replacement.
  for (int i = 0; i < 4; ++i) EXPECT_EQ(text_of(engine.run({"incr n", {}})), "1");
  EXPECT_NE(workers->stats().pids.at(0), pid);
  EXPECT_TRUE(eventually([&] { return workers->stats().lost == 1; }));
}

TEST(Lanes, IdleLanesPerWorkerAreBounded) {
  auto workers = start_workers(1);
  const Engine engine = workers->engine(0);
  EXPECT_EQ(text_of(engine.run({"incr n", {}})), "1");
  const std::size_t before = open_fds();  // one idle lane
  constexpr std::size_t kCalls = 2 * kMaxIdleLanes;
  constexpr std::size_t kLane = 2;  // a lane's ends in the server (workers/lane_sockets.h)
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < kCalls; ++t) {
    threads.emplace_back([&] { static_cast<void>(engine.run({kSleepHost, {}})); });
  }
  // All at once: each on a lane of its own.
  EXPECT_TRUE(eventually([&] { return open_fds() == before + kLane * (kCalls - 1); }))
      << open_fds();
  for (auto& t : threads) t.join();
  EXPECT_EQ(open_fds(), before + kLane * (kMaxIdleLanes - 1));
  // The kept lanes serve later calls.
  for (int i = 0; i < 20; ++i) EXPECT_EQ(text_of(engine.run({"incr n", {}})), "1");
  EXPECT_EQ(open_fds(), before + kLane * (kMaxIdleLanes - 1));
  // The worker's threads of the closed lanes ended within its seccomp filter.
  EXPECT_EQ(workers->stats().lost, 0u);
  EXPECT_EQ(workers->stats().pids.size(), 1u);
  EXPECT_EQ(workers->stats().started, 1u);
}

}  // namespace

// The engines a zygote started as this program makes (main() below).
Engine make_named_test_engine(const std::string& name) {
  if (name == kSlowKv) return make_slow_kv();
  if (name != kFaultyKv) throw std::invalid_argument("no test engine " + name);
  return faulty(engines::make_kv_engine());
}

}  // namespace sandbox

int main(int argc, char** argv) {
  sandbox::serve_as_zygote_if_asked(argc, argv, sandbox::make_named_test_engine);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

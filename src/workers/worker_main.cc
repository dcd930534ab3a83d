#include "workers/worker_main.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <sched.h>
#include <unistd.h>

#include <sandbox/protocol.h>

#include "base/recycled_buffer.h"
#include "snapshot/delta.h"
#include "snapshot/snapshot_error.h"
#include "workers/lane_area.h"
#include "workers/lane_sockets.h"
#include "workers/worker_protocol.h"

namespace sandbox::workers {
namespace {

// A replica's clock: the server's clock at the start of the call, advanced by the time the call
// has taken, so files a guest writes carry the times they would carry in the server.
class CallClock final : public Clock {
 public:
  void set(std::int64_t server_now_ms) {
    base_ms_.store(server_now_ms);
    start_ns_.store(steady_ns());
  }
  std::int64_t now_ms() const override {
    return base_ms_.load() + (steady_ns() - start_ns_.load()) / 1'000'000;
  }

 private:
  static std::int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  std::atomic<std::int64_t> base_ms_{0};
  std::atomic<std::int64_t> start_ns_{0};
};

struct Replica {
  CallClock clock;
  Workspace ws{clock};
  ReplicaState last;
};

// The announcement of a call's answer (kSoon; docs/security.md#answers-announced): made once the
// call's engine work is done, when the server asked for it and that work lasted kAnnounceAfter or
// more.
class Announcement {
 public:
  Announcement(Channel& channel, std::uint64_t call, bool asked)
      : channel_(channel), call_(call), asked_(asked), began_(std::chrono::steady_clock::now()) {}
  void engine_done() const {
    if (!asked_ || std::chrono::steady_clock::now() - began_ < kAnnounceAfter) return;
    try {
      channel_.send(static_cast<std::uint32_t>(Kind::kSoon), call_, {});
    } catch (const ChannelError&) {
      // The server gave up on the call: its answer fails the same way.
    }
  }

 private:
  Channel& channel_;
  const std::uint64_t call_;
  const bool asked_;
  const std::chrono::steady_clock::time_point began_;
};

// Work an engine left for after a call's answer (ExecutionRequest::defer): done on the lane's
// thread once the answer or failure has been sent, when the call's handling ends, so the server
// does not wait for it (docs/security.md#work-after-the-answer). The lane takes its next call
// after it.
class AfterAnswer {
 public:
  AfterAnswer() = default;
  ~AfterAnswer() {
    for (const auto& task : tasks_) {
      try {
        task();
      } catch (const std::exception&) {
        // A task must not throw (ExecutionRequest::defer); one that does only loses its work.
      }
    }
  }
  AfterAnswer(const AfterAnswer&) = delete;
  AfterAnswer& operator=(const AfterAnswer&) = delete;
  void add(std::function<void()> task) { tasks_.push_back(std::move(task)); }

 private:
  std::vector<std::function<void()>> tasks_;
};

// The pieces of a restore's blocks (kRestoreBlocks frames) as they arrive on the call's lane
// after its frame, each checked (ascending, above the pieces before, within the memory, its
// bytes in the frame or within the lane's area) and kept, with its bytes, until the call ends.
// A piece's bytes in the area stay there: the server writes each part of the area once per call,
// and this call's answer writes there only after the last piece. With `spin`, each piece is
// looked for awake for up to kRestorePieceSpin before the read sleeps.
class RestorePieces {
 public:
  RestorePieces(Channel& lane, std::uint64_t call, std::uint32_t memory_pages,
                std::span<const char> area, bool spin)
      : lane_(lane), call_(call), memory_pages_(memory_pages), area_(area), spin_(spin) {}

  // A restore that is not streamed: its one piece, read from the call's frame `r` (which
  // outlives this), is the only one.
  void take_whole(Reader& r) {
    whole_ = read_restore_piece(r, memory_pages_, area_.size());
    ended_ = true;
  }

  // The next piece's blocks and bytes, or nullopt after the last. Throws WireError for a frame
  // that is not this call's piece, or that breaks the order.
  std::optional<SnapshotBlocks> next() {
    if (whole_) {
      RestorePiece piece = std::move(*whole_);
      whole_.reset();
      if (piece.blocks.empty()) return std::nullopt;
      return add(std::move(piece));
    }
    if (ended_) return std::nullopt;
    // Beside the server's thread, the next piece is looked for awake, which needs no wake-up
    // (docs/security.md#restore-overlap).
    if (spin_) lane_.spin_until_readable(kRestorePieceSpin);
    std::optional<Frame> frame = lane_.receive();
    if (!frame) throw WireError("the lane closed before the restore's last piece");
    if (frame->call != call_ || static_cast<Kind>(frame->kind) != Kind::kRestoreBlocks) {
      throw WireError("a frame other than the restore's next piece");
    }
    // Kept until the call ends: a piece's bytes may be in its frame.
    const Frame& kept = frames_.emplace_back(std::move(*frame));
    Reader r(kept.payload);
    RestorePiece piece = read_restore_piece(r, memory_pages_, area_.size());
    r.finish();
    if (piece.blocks.empty()) {
      ended_ = true;
      return std::nullopt;
    }
    if (!pieces_.empty() && piece.blocks.front() <= pieces_.back().blocks.back()) {
      throw WireError("a restore piece's blocks are not above the pieces before");
    }
    return add(std::move(piece));
  }
  // Takes every piece not taken yet.
  void take_rest() {
    while (next()) {
    }
  }
  // Reads past the pieces not taken yet, as far as it can, after a failure.
  void skip_rest() noexcept {
    try {
      take_rest();
    } catch (const std::exception&) {
      // The lane ended (a server whose reading failed closes it), or broke: its thread skips
      // any piece still on it, and the server's next call on it times out if it broke.
    }
  }
  // Calls `f(block, bytes)` for every block taken so far, ascending.
  template <typename F>
  void for_each_block(F&& f) const {
    for (const Taken& piece : pieces_) {
      for (std::size_t i = 0; i < piece.blocks.size(); ++i) {
        f(piece.blocks[i], piece.bytes + i * kChangeBlockBytes);
      }
    }
  }
  // The bytes of `block` when a piece taken so far holds it, else null.
  const std::uint8_t* find(std::uint32_t block) const {
    // The first piece that reaches `block`: the pieces are ascending, one after the other.
    const auto piece =
        std::partition_point(pieces_.begin(), pieces_.end(),
                             [block](const Taken& p) { return p.blocks.back() < block; });
    if (piece == pieces_.end()) return nullptr;
    const auto it = std::lower_bound(piece->blocks.begin(), piece->blocks.end(), block);
    if (*it != block) return nullptr;  // not past the end: the piece's last block reaches it
    return piece->bytes + static_cast<std::size_t>(it - piece->blocks.begin()) * kChangeBlockBytes;
  }

 private:
  // A piece taken: its blocks (none empty) and where their bytes are.
  struct Taken {
    std::vector<std::uint32_t> blocks;
    const std::uint8_t* bytes;
  };

  SnapshotBlocks add(RestorePiece piece) {
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(
        piece.area_offset ? area_.data() + *piece.area_offset : piece.bytes.data());
    const Taken& taken = pieces_.emplace_back(Taken{std::move(piece.blocks), bytes});
    return SnapshotBlocks{taken.blocks, std::span(bytes, taken.blocks.size() * kChangeBlockBytes)};
  }

  Channel& lane_;
  const std::uint64_t call_;
  const std::uint32_t memory_pages_;
  const std::span<const char> area_;
  const bool spin_;
  std::optional<RestorePiece> whole_;  // a restore that is not streamed, until handed out
  bool ended_ = false;
  std::deque<Frame> frames_;  // those whose pieces' bytes may be in them
  std::deque<Taken> pieces_;
};

// Keeps the calling thread off CPU `cpu` while it lives, when the thread is on it now and has
// another CPU to go to: a restore's worker thread woken by its server's send is often run on
// the server thread's CPU (an AF_UNIX send wakes its reader as a synchronous wake-up), where it
// would wait for the server to finish reading the pieces instead of taking them beside it
// (docs/security.md#restore-overlap). Moved, the thread gets its former CPUs back when this
// ends. Does nothing when the server's CPU is not known (a restore that reads no page) or the
// thread is elsewhere already.
class AwayFromCpu {
 public:
  explicit AwayFromCpu(std::optional<std::uint32_t> cpu) {
    if (!cpu || *cpu >= CPU_SETSIZE) return;
    const int now = ::sched_getcpu();
    if (now < 0) return;
    if (now != static_cast<int>(*cpu)) {
      apart_ = true;
      return;
    }
    if (::sched_getaffinity(0, sizeof before_, &before_) != 0) return;
    cpu_set_t away = before_;
    CPU_CLR(*cpu, &away);
    if (CPU_COUNT(&away) == 0) return;
    moved_ = ::sched_setaffinity(0, sizeof away, &away) == 0;
    apart_ = moved_;
  }
  // Whether the thread runs on another CPU than `cpu` now (moved, or elsewhere already).
  bool apart() const { return apart_; }
  ~AwayFromCpu() {
    if (moved_) (void)::sched_setaffinity(0, sizeof before_, &before_);
  }
  AwayFromCpu(const AwayFromCpu&) = delete;
  AwayFromCpu& operator=(const AwayFromCpu&) = delete;

 private:
  cpu_set_t before_{};
  bool moved_ = false;
  bool apart_ = false;
};

struct Slot {
  std::unique_ptr<SessionInstance> instance;
  // What the server's copy of the instance's memory holds.
  MemoryBaseline baseline;
  std::shared_ptr<Replica> replica;
  // The call in progress on this instance and the channel it came on (a lane, or the main
  // channel): where a cwd change mid-execute is reported. Null between calls.
  std::atomic<std::uint64_t> call{0};
  std::atomic<Channel*> channel{nullptr};
};

// Points a slot at the call in progress on it until the call ends.
class CallOnSlot {
 public:
  CallOnSlot(Slot& slot, Channel& channel, std::uint64_t call) : slot_(slot) {
    slot_.call = call;
    slot_.channel = &channel;
  }
  ~CallOnSlot() { slot_.channel = nullptr; }
  CallOnSlot(const CallOnSlot&) = delete;
  CallOnSlot& operator=(const CallOnSlot&) = delete;

 private:
  Slot& slot_;
};

class Worker {
 public:
  Worker(UniqueFd fd, const std::vector<Engine>& engines)
      : channel_(std::move(fd), kMaxWorkerPayloadBytes), engines_(engines) {}

  [[noreturn]] void serve(const std::string& confinement) {
    Writer hello;
    hello.str(confinement);
    send(channel_, Kind::kReply, 0, hello.buffer());
    for (;;) {
      std::optional<Frame> frame;
      try {
        frame = channel_.receive();
      } catch (const std::exception&) {
        frame.reset();
      }
      if (!frame) _exit(0);  // the server is gone (or broke the protocol): nothing to serve
      if (static_cast<Kind>(frame->kind) == Kind::kLane) {
        if (std::optional<LaneGrant> lane = take_lane(*frame)) {
          std::thread([this, lane = std::move(*lane)]() mutable {
            serve_lane(std::move(lane));
          }).detach();
          continue;
        }
      }
      _exit(0);  // the server sends calls on lanes only: it broke the protocol
    }
  }

 private:
  // Serves the calls of one lane, each handled on this thread, until the server closes it.
  // The lane's area takes the memory blocks of its answers (none: they carry them).
  void serve_lane(LaneGrant grant) {
    Channel lane(std::move(grant.calls), std::move(grant.answers), kMaxWorkerPayloadBytes);
    const LaneArea area(grant.area.get(), true);
    grant.area = UniqueFd();  // the mapping stays
    // When this lane's last call was answered (unless none was, or it was a restore), and how
    // long to look for the next one awake (next_call_look: docs/security.md#calls-in-a-row).
    std::chrono::steady_clock::time_point answered{};
    bool gap_counts = false;  // whether the next call's gap is counted from `answered`
    std::chrono::microseconds look{0};
    for (;;) {
      if (look.count() > 0) lane.spin_until_readable(look);
      std::optional<Frame> frame;
      try {
        frame = lane.receive();
      } catch (const std::exception&) {
        frame.reset();
      }
      if (!frame) return;  // the server closed the lane (or broke it): the lane ends
      const auto arrived = std::chrono::steady_clock::now();
      frame->fds.clear();
      if (static_cast<Kind>(frame->kind) == Kind::kRestoreBlocks) {
        continue;  // a piece of a restore that failed before it took them all
      }
      if (static_cast<Kind>(frame->kind) == Kind::kWake) {
        // A call follows soon: look for it awake, so that it needs no wake-up
        // (docs/security.md#calls-announced).
        look = kWokenLaneSpin;
        continue;
      }
      handle(lane, *frame, area.writable());
      look = next_call_look(frame->kind,
                            gap_counts ? std::optional(arrived - answered) : std::nullopt);
      // The execute after a restore is the same request's: the gap before the call after it says
      // how soon its caller sends the next request.
      gap_counts = static_cast<Kind>(frame->kind & ~kAnnounceFlag) != Kind::kRestore;
      answered = std::chrono::steady_clock::now();
    }
  }

  // Handles one call and answers it on `channel`, where it came from, with the memory blocks it
  // sends in `area` when they fit.
  void handle(Channel& channel, const Frame& frame, std::span<char> area) {
    const Announcement announcement(channel, frame.call, (frame.kind & kAnnounceFlag) != 0);
    AfterAnswer after_answer;
    const auto kind = static_cast<Kind>(frame.kind & ~kAnnounceFlag);
    Writer out;
    try {
      Reader r(frame.payload);
      switch (kind) {
        case Kind::kRun:
          run(r, channel, frame.call, out, after_answer);
          break;
        case Kind::kBoot:
        case Kind::kRestore:
          start_session(r, channel, frame, kind, out, area, announcement);
          break;
        case Kind::kExecute:
          execute(r, channel, frame.call, out, area, announcement);
          break;
        case Kind::kSnapshot:
          snapshot(r, out, area);
          break;
        case Kind::kClose:
          close(r);
          break;
        case Kind::kBase:
          base(r, out);
          break;
        case Kind::kForget:
          forget(r);
          break;
        default:
          throw WireError("unknown call kind " + std::to_string(frame.kind));
      }
    } catch (const ExecutionLimitError& e) {
      fail(channel, frame.call, FailureType::kLimit, e.what());
      return;
    } catch (const ApiError& e) {
      fail(channel, frame.call, FailureType::kClassified, e.what(), e.kind());
      return;
    } catch (const std::exception& e) {
      if (const auto* classified = dynamic_cast<const ClassifiedError*>(&e)) {
        fail(channel, frame.call, FailureType::kClassified, classified->wire_message(),
             classified->kind());
        return;
      }
      fail(channel, frame.call, FailureType::kError, e.what());
      return;
    }
    send(channel, Kind::kReply, frame.call, out.buffer());
  }

  void send(Channel& channel, Kind kind, std::uint64_t call, std::string_view payload) {
    try {
      channel.send(static_cast<std::uint32_t>(kind), call, payload);
    } catch (const ChannelError&) {
      // The server is gone, or (a lane) gave up on this call and closed its end: the call runs
      // to its end unheard, and the lane's thread then sees the end.
      if (&channel == &channel_) _exit(0);
    }
  }

  void fail(Channel& channel, std::uint64_t call, FailureType type, const std::string& message,
            ErrorKind kind = ErrorKind::kUnexpected) {
    Writer w;
    write_failure(w, Failure{type, message, kind});
    send(channel, Kind::kFailure, call, w.buffer());
  }

  // Streams output pieces of call `call` to the server as they are accepted.
  OutputObserver observer(Channel& channel, std::uint64_t call) {
    return [this, &channel, call](OutputStream stream, std::string_view text) {
      Writer w;
      w.u8(stream == OutputStream::kStdout ? 0 : 1);
      w.str(text);
      send(channel, Kind::kOutput, call, w.buffer());
    };
  }

  const Engine& engine(Reader& r) const {
    const std::uint32_t i = r.u32();
    if (i >= engines_.size()) throw WireError("unknown engine");
    return engines_[i];
  }

  std::shared_ptr<Slot> slot(std::uint64_t id) {
    std::lock_guard lock(mu_);
    const auto it = slots_.find(id);
    if (it == slots_.end()) throw WireError("unknown session instance");
    return it->second;
  }

  std::shared_ptr<Replica> replica(std::uint64_t id) {
    std::lock_guard lock(mu_);
    auto& r = replicas_[id];
    if (!r) r = std::make_shared<Replica>();
    return r;
  }

  static SessionState state_of(const SessionInstance& instance) {
    return SessionState{instance.cwd(), instance.invalid(), instance.can_snapshot()};
  }

  void run(Reader& r, Channel& channel, std::uint64_t call, Writer& out,
           AfterAnswer& after_answer) {
    const Engine& e = engine(r);
    r.i64();  // the server's clock: a stateless run has no workspace to stamp
    const bool stream = r.boolean();
    ExecutionRequest request = read_request(r);
    r.finish();
    if (stream) request.on_output = observer(channel, call);
    request.defer = [&after_answer](std::function<void()> task) {
      after_answer.add(std::move(task));
    };
    write_outcome(out, e.run(request));
  }

  void start_session(Reader& r, Channel& channel, const Frame& frame, Kind kind, Writer& out,
                     std::span<char> area, const Announcement& announcement) {
    const Engine& e = engine(r);
    if (!e.sessions) throw WireError("engine has no sessions");
    const std::uint64_t id = r.u64();
    auto rep = replica(r.u64());
    rep->clock.set(r.i64());
    apply_workspace_update(r, rep->ws, rep->last);
    auto s = std::make_shared<Slot>();
    s->replica = rep;
    const CallOnSlot on_slot(*s, channel, frame.call);
    SessionOptions options;
    options.workspace = &rep->ws;
    options.cwd = r.str();
    Slot* raw = s.get();
    options.on_cwd_change = [this, raw](const std::string& cwd) {
      Channel* to = raw->channel.load();
      if (to == nullptr) return;  // no call in progress: the next call's state carries the cwd
      Writer w;
      w.str(cwd);
      send(*to, Kind::kCwd, raw->call.load(), w.buffer());
    };
    if (kind == Kind::kBoot) {
      r.finish();
      s->instance = e.sessions->boot(options);
      // A booted instance holds the engine's image, as the server's copy does when it has one;
      // when the server has none it asks for the whole memory (kExecute's `all`).
      if (auto image = image_blocks(e)) {
        const auto pages = static_cast<std::uint32_t>(image->pages.size());
        s->baseline.start(std::move(image), pages);
      }
      write_state(out, state_of(*s->instance));
    } else {
      const RestoreSource source = read_restore_source(r);
      // The blocks come in pieces after the call (kRestoreBlocks), taken as the engine asks
      // for them: it makes its instance ready while the server is still reading them.
      // Beside the server's thread, not on its CPU waiting for it, while it reads the pieces, when
      // few calls are in flight; and then looking for each piece awake. On the server's CPU, a
      // thread that looked awake would take the CPU from the server's reading.
      const bool few_calls = (frame.kind & kAnnounceFlag) != 0;
      const AwayFromCpu away(few_calls ? source.server_cpu : std::nullopt);
      RestorePieces pieces(channel, frame.call, source.memory_pages, area, away.apart());
      if (!source.streamed) pieces.take_whole(r);
      r.finish();
      // The image the blocks go over: ours, which must be the one the server's delta is from.
      std::shared_ptr<const SnapshotBase> base;
      if (source.base_delta_pages) {
        if (e.sessions->base) base = e.sessions->base();
        if (!base || base->fingerprint != source.base_fingerprint) {
          pieces.skip_rest();
          throw SnapshotError("Snapshot is a delta from another image than this worker's");
        }
      }
      SnapshotSource src;
      src.handle = source.handle;
      src.extra = source.extra;
      src.memory_pages = source.memory_pages;
      src.base_delta_pages = source.base_delta_pages;
      src.base_fingerprint = source.base_fingerprint;
      // A page as the engine reads it: the image's (or zeros) with the blocks sent over it, made
      // in one buffer that lasts until the next read (SnapshotSource::read_page). A recycled one
      // (docs/snapshot-format.md#recycled-buffers): 64 KiB of fresh memory cost 16 page faults
      // per restore, about 100 µs of a JavaScript restore where faults are costly.
      ScopedRecycledBuffer<std::vector<std::uint8_t>> buffer(kWasmPageBytes);
      std::vector<std::uint8_t>& page_buffer = buffer.get();
      src.read_page = [&](std::uint32_t page) -> std::optional<std::span<const std::uint8_t>> {
        pieces.take_rest();
        const std::uint32_t first = page * kChangeBlocksPerPage;
        std::array<const std::uint8_t*, kChangeBlocksPerPage> sent{};
        bool any = false;
        for (std::uint32_t b = 0; b < kChangeBlocksPerPage; ++b) {
          sent[b] = pieces.find(first + b);
          any = any || sent[b] != nullptr;
        }
        const std::uint8_t* image = base ? base_page(*base, page) : nullptr;
        if (!any && image == nullptr) return std::nullopt;  // all zero
        if (image != nullptr) {
          std::memcpy(page_buffer.data(), image, kWasmPageBytes);
        } else {
          std::memset(page_buffer.data(), 0, kWasmPageBytes);
        }
        for (std::uint32_t b = 0; b < kChangeBlocksPerPage; ++b) {
          if (sent[b] != nullptr) {
            std::memcpy(page_buffer.data() + std::size_t{b} * kChangeBlockBytes, sent[b],
                        kChangeBlockBytes);
          }
        }
        return std::span<const std::uint8_t>(page_buffer);
      };
      // The blocks as they come: the server sends only those that differ from the image.
      if (base) src.next_delta_blocks = [&] { return pieces.next(); };
      try {
        s->instance = e.sessions->restore(options, src);
        pieces.take_rest();  // those the engine did not ask for
      } catch (...) {
        pieces.skip_rest();  // the lane's next frame is then the next call's
        throw;
      }
      announcement.engine_done();
      // The server's copy: the same image (or zeros) with the same blocks.
      auto image = base ? image_blocks(e) : nullptr;
      if (!base || (image && image->fingerprint == base->fingerprint)) {
        s->baseline.start(std::move(image), source.memory_pages);
        pieces.for_each_block([&](std::uint32_t block, const std::uint8_t* bytes) {
          s->baseline.set_block(block, bytes);
        });
      }
      write_state(out, state_of(*s->instance));
      write_changes_if_any(*s, out, area);
    }
    std::lock_guard lock(mu_);
    slots_[id] = std::move(s);
  }

  // The engine's image as block hashes, made on first use; null when the engine offers no image.
  std::shared_ptr<const ImageBlockHashes> image_blocks(const Engine& e) {
    if (!e.sessions || !e.sessions->base) return nullptr;
    const std::lock_guard lock(images_mu_);
    auto& cached = images_[&e];
    if (!cached) {
      if (const auto base = e.sessions->base()) {
        cached = hash_image_blocks(*base);
      } else {
        cached = std::make_shared<const ImageBlockHashes>();  // none; asked once
      }
    }
    return cached->fingerprint.empty() ? nullptr : cached;
  }

  // After a call that leaves the instance able to take a snapshot: true and what its memory
  // changed since the server's copy, which saves the server a kSnapshot call; otherwise false.
  static void write_changes_if_any(Slot& s, Writer& out, std::span<char> area) {
    const bool ready = !s.instance->invalid() && s.instance->can_snapshot();
    out.boolean(ready);
    if (ready) write_changes_now(s, out, area);
  }

  static void write_changes_now(Slot& s, Writer& out, std::span<char> area) {
    const SessionSnapshot snap = s.instance->snapshot();
    const auto blocks = s.baseline.take_changes(snap.memory, snap.dirty_pages, snap.dirty_blocks);
    write_changes(out, snap, blocks ? &*blocks : nullptr, area);
  }

  void execute(Reader& r, Channel& channel, std::uint64_t call, Writer& out, std::span<char> area,
               const Announcement& announcement) {
    auto s = slot(r.u64());
    s->replica->clock.set(r.i64());
    const bool stream = r.boolean();
    if (r.boolean()) s->baseline.forget();  // the server asks for the whole memory
    ExecutionRequest request = read_request(r);
    apply_workspace_update(r, s->replica->ws, s->replica->last);
    r.finish();
    if (stream) request.on_output = observer(channel, call);
    const CallOnSlot on_slot(*s, channel, call);
    const SessionOutcome outcome = s->instance->execute(request);
    announcement.engine_done();
    write_outcome(out, outcome);
    out.str(outcome.cwd);
    write_state(out, state_of(*s->instance));
    write_workspace_update(out, s->replica->ws, s->replica->last);
    write_changes_if_any(*s, out, area);
  }

  void snapshot(Reader& r, Writer& out, std::span<char> area) {
    auto s = slot(r.u64());
    if (r.boolean()) s->baseline.forget();
    r.finish();
    if (!s->instance->can_snapshot()) throw WireError("the instance cannot be snapshotted now");
    write_changes_now(*s, out, area);
  }

  void close(Reader& r) {
    const std::uint64_t id = r.u64();
    r.finish();
    std::shared_ptr<Slot> s;
    {
      std::lock_guard lock(mu_);
      const auto it = slots_.find(id);
      if (it == slots_.end()) return;
      s = std::move(it->second);
      slots_.erase(it);
    }
    s->instance->close();
  }

  void base(Reader& r, Writer& out) {
    const Engine& e = engine(r);
    r.finish();
    std::shared_ptr<const SnapshotBase> b;
    if (e.sessions && e.sessions->base) b = e.sessions->base();
    write_base(out, b.get());
  }

  void forget(Reader& r) {
    const std::uint64_t id = r.u64();
    r.finish();
    std::lock_guard lock(mu_);
    replicas_.erase(id);
  }

  Channel channel_;
  const std::vector<Engine>& engines_;
  std::mutex mu_;
  std::map<std::uint64_t, std::shared_ptr<Slot>> slots_;
  std::map<std::uint64_t, std::shared_ptr<Replica>> replicas_;
  std::mutex images_mu_;
  std::map<const Engine*, std::shared_ptr<const ImageBlockHashes>> images_;
};

}  // namespace

void run_worker(UniqueFd channel, const std::vector<Engine>& engines,
                const std::string& confinement) {
  // Never destroyed: the process ends with _exit while calls may still run.
  auto* worker = new Worker(std::move(channel), engines);
  worker->serve(confinement);
}

}  // namespace sandbox::workers

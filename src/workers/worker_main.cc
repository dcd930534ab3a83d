#include "workers/worker_main.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

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
    for (;;) {
      std::optional<Frame> frame;
      try {
        frame = lane.receive();
      } catch (const std::exception&) {
        frame.reset();
      }
      if (!frame) return;  // the server closed the lane (or broke it): the lane ends
      frame->fds.clear();
      if (static_cast<Kind>(frame->kind) == Kind::kWake) {
        // A call follows soon: look for it awake, so that it needs no wake-up
        // (docs/security.md#calls-announced).
        lane.spin_until_readable(kWokenLaneSpin);
        continue;
      }
      handle(lane, *frame, area.writable());
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
      const RestoreSource source = read_restore_source(r, area.size());
      r.finish();
      // The blocks' bytes: in the frame, or where the server put them in the lane's area. They
      // are read before this call's answer writes its own blocks there.
      const std::string_view bytes =
          source.in_area ? std::string_view(area.data(), source.blocks.size() * kChangeBlockBytes)
                         : source.bytes;
      // The image the blocks go over: ours, which must be the one the server's delta is from.
      std::shared_ptr<const SnapshotBase> base;
      if (source.base_delta_pages) {
        if (e.sessions->base) base = e.sessions->base();
        if (!base || base->fingerprint != source.base_fingerprint) {
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
        const std::uint32_t first = page * kChangeBlocksPerPage;
        auto it = std::lower_bound(source.blocks.begin(), source.blocks.end(), first);
        const bool any = it != source.blocks.end() && *it < first + kChangeBlocksPerPage;
        const std::uint8_t* image = base ? base_page(*base, page) : nullptr;
        if (!any && image == nullptr) return std::nullopt;  // all zero
        if (image != nullptr) {
          std::memcpy(page_buffer.data(), image, kWasmPageBytes);
        } else {
          std::memset(page_buffer.data(), 0, kWasmPageBytes);
        }
        for (; it != source.blocks.end() && *it < first + kChangeBlocksPerPage; ++it) {
          const std::size_t at = static_cast<std::size_t>(it - source.blocks.begin());
          std::memcpy(page_buffer.data() + std::size_t{*it - first} * kChangeBlockBytes,
                      bytes.data() + at * kChangeBlockBytes, kChangeBlockBytes);
        }
        return std::span<const std::uint8_t>(page_buffer);
      };
      // The blocks as they came: the server sent only those that differ from the image.
      if (base) {
        src.base_delta_blocks = SnapshotBlocks{
            source.blocks,
            std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size())};
      }
      s->instance = e.sessions->restore(options, src);
      announcement.engine_done();
      // The server's copy: the same image (or zeros) with the same blocks.
      auto image = base ? image_blocks(e) : nullptr;
      if (!base || (image && image->fingerprint == base->fingerprint)) {
        s->baseline.start(std::move(image), source.memory_pages);
        for (std::size_t i = 0; i < source.blocks.size(); ++i) {
          s->baseline.set_block(
              source.blocks[i],
              reinterpret_cast<const std::uint8_t*>(bytes.data()) + i * kChangeBlockBytes);
        }
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

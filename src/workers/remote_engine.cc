#include "workers/remote_engine.h"

#include <chrono>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>

#include <sched.h>

#include "base/recycled_buffer.h"
#include "snapshot/delta.h"
#include "snapshot/snapshot_error.h"
#include "workers/shadow_memory.h"

namespace sandbox::workers {
namespace {

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The server's clock for a workspace: the mirror's own, so files a guest writes carry the times
// they would carry in one process.
std::int64_t now_for(const Workspace* ws) { return ws->now_ms(); }

// Delivers the output pieces a worker streams to the request's observer.
WorkerConnection::Progress output_progress(const OutputObserver& observer) {
  return [&observer](const Frame& frame) {
    if (static_cast<Kind>(frame.kind) != Kind::kOutput) return;
    Reader r(frame.payload);
    const std::uint8_t stream = r.u8();
    const std::string_view text = r.str_view();
    r.finish();
    if (stream > 1) throw WireError("output frame names an unknown stream");
    if (observer) observer(stream == 0 ? OutputStream::kStdout : OutputStream::kStderr, text);
  };
}

// Decodes a reply with `decode`; a reply that is not what the protocol says marks the worker as
// broken (it is killed) and fails the call like a lost worker.
template <typename F>
auto decode(WorkerConnection& worker, const Frame& frame, F&& f) {
  try {
    Reader r(frame.payload);
    auto result = f(r);
    r.finish();
    return result;
  } catch (const WireError& e) {
    worker.broke_protocol(e.what());
  }
}

class RemoteSession final : public SessionInstance {
 public:
  RemoteSession(std::shared_ptr<Pool> pool, std::size_t engine, const SessionOptions& options)
      : pool_(std::move(pool)),
        engine_(engine),
        scratch_(options.workspace == nullptr ? std::make_unique<Workspace>(scratch_clock_)
                                              : nullptr),
        workspace_(options.workspace != nullptr ? options.workspace : scratch_.get()),
        on_cwd_change_(options.on_cwd_change),
        shadow_(pool_->take_shadow(engine)),
        id_(pool_->next_instance_id()),
        // Before the home: learning the base first (once per engine) lets the pool give this
        // instance a worker that starts with the engine's image.
        base_(pool_->base(engine)) {
    home_ = pool_->enter_home(workspace_);
    worker_ = home_->worker;
  }

  ~RemoteSession() override {
    close();
    pool_->give_back_shadow(engine_, std::move(shadow_));
  }

  // Boots (source null) or restores the instance in the worker.
  void start(const SessionOptions& options, const SnapshotSource* source) {
    Writer w;
    w.u32(static_cast<std::uint32_t>(engine_));
    w.u64(id_);
    w.u64(home_->id);
    w.i64(now_for(workspace_));
    write_update(w);
    w.str(options.cwd);
    const ServerBase* server_base = base_ ? server_base_of(*base_) : nullptr;
    if (source == nullptr) {
      // A booted instance holds the engine's image, which is the base.
      if (server_base != nullptr) {
        shadow_->reset(server_base, base_->pages);
        shadow_known_ = true;
      } else {
        shadow_->reset(nullptr, 0);  // a reused shadow holds another instance's memory
      }
      const Frame reply = call(Kind::kBoot, {w.buffer()});
      state_ = decode(*worker_, reply, [](Reader& r) { return read_state(r); });
      return;
    }
    const RestorePlan plan = plan_restore(*source, base_.get());
    // The blocks are gathered into one buffer (as large as what is sent, at most the memory
    // limit, for the call's length; one of a usual size is kept for the next restore), which
    // the worker cannot write: the shadow takes them from it while the worker restores, the
    // server's copy and the worker's made at once on two cores (docs/security.md#restore-overlap).
    ScopedRecycledBuffer<std::string> buffer(0);
    std::string& bytes = buffer.get();
    std::vector<std::uint32_t> blocks;
    const auto write_shadow = [&] {
      shadow_->reset(plan.delta ? server_base : nullptr, source->memory_pages);
      shadow_->write_blocks(blocks, reinterpret_cast<const std::uint8_t*>(bytes.data()));
    };
    Frame reply;
    if (plan.pages.empty()) {
      // Nothing to read: the call goes alone, with its one piece empty, and the shadow is set to
      // the image (or zeros) while the worker restores.
      write_restore_source(w, plan.meta, plan.delta, std::nullopt, false);
      write_restore_piece(w, {}, std::nullopt);
      reply = call(Kind::kRestore, {w.buffer()}, {}, write_shadow);
    } else {
      // The worker gets the call first and makes its instance ready (60-300 µs) while the blocks
      // are read here (25-60 µs a page), and takes each piece as soon as it is read, beside this
      // thread (its CPU named for the worker to leave); the shadow takes them after the last
      // piece, while the worker finishes its restore. The worker's thread looks for the pieces
      // and for the call after the restore awake, so even Lua's 4-page restores in bench/run
      // gain: sent with the call, they took 1.24x those of --isolation thread, in pieces 1.09x
      // (docs/security.md#restore-overlap).
      const int cpu = ::sched_getcpu();
      write_restore_source(w, plan.meta, plan.delta,
                           cpu >= 0 ? std::optional<std::uint32_t>(cpu) : std::nullopt, true);
      const auto stream = [&](const WorkerConnection::SendMore& send_more, std::span<char> area) {
        std::size_t sent = 0;       // blocks
        std::size_t area_used = 0;  // bytes of the area the pieces before took
        // Sends the blocks read since the last piece (none: the end), their bytes in the area
        // after those of the pieces before when they fit there, and in the frame otherwise.
        const auto send_piece = [&] {
          const std::span<const std::uint32_t> listed = std::span(blocks).subspan(sent);
          const std::string_view piece_bytes =
              std::string_view(bytes).substr(sent * kChangeBlockBytes);
          const bool in_area = !listed.empty() && piece_bytes.size() <= area.size() - area_used;
          Writer piece;
          write_restore_piece(piece, listed,
                              in_area ? std::optional<std::size_t>(area_used) : std::nullopt);
          if (in_area) {
            std::memcpy(area.data() + area_used, piece_bytes.data(), piece_bytes.size());
            area_used += piece_bytes.size();
            send_more(Kind::kRestoreBlocks, {piece.buffer()});
          } else {
            send_more(Kind::kRestoreBlocks, {piece.buffer(), piece_bytes});
          }
          sent = blocks.size();
        };
        gather_restore(*source, base_.get(), plan,
                       [&](std::uint32_t block, const std::uint8_t* at) {
                         blocks.push_back(block);
                         bytes.append(reinterpret_cast<const char*>(at), kChangeBlockBytes);
                         if (blocks.size() - sent == kRestorePieceBlocks) send_piece();
                       });
        if (blocks.size() > sent) send_piece();
        send_piece();  // the end
        write_shadow();
      };
      reply = stream_call(Kind::kRestore, {w.buffer()}, stream);
    }
    decode(*worker_, reply, [&](Reader& r) {
      state_ = read_state(r);
      read_changes_if_any(r, reply.area);
      return 0;
    });
  }

  std::string cwd() const override { return state_.cwd; }

  // A worker that died after answering a step leaves its changes here: the round's memory is
  // complete in the shadow, so the instance stays valid until snapshot() has taken it
  // (docs/contexts.md#worker-loss).
  bool invalid() const override {
    return closed_ || state_.invalid || (worker_->dead() && !changes_ready_);
  }

  bool can_snapshot() const override { return !invalid() && state_.can_snapshot; }

  // After a long step (its call lasted kWakeAfterStep or more), the worker's lane thread wakes
  // while the server does its own work on the next request; the next call, whichever it is,
  // goes on that lane. After a short one, waking it early gained nothing: the server's work
  // before a short step's call is about as long as the wake-up, and a step that follows soon is
  // looked for by the worker anyway (docs/security.md#calls-announced,
  // docs/security.md#calls-in-a-row).
  void expect_call() override {
    if (!closed_ && last_step_long_) worker_->wake(woken_);
  }

  SessionOutcome execute(const ExecutionRequest& request) override {
    if (closed_) throw std::logic_error("execute on a closed session instance");
    Writer w;
    w.u64(id_);
    w.i64(now_for(workspace_));
    w.boolean(static_cast<bool>(request.on_output));
    w.boolean(!shadow_known_);  // the shadow needs the whole memory
    write_request(w, request);
    write_update(w);
    const auto output = output_progress(request.on_output);
    const auto began = std::chrono::steady_clock::now();
    last_step_long_ = false;
    const Frame reply = call(Kind::kExecute, {w.buffer()}, [&](const Frame& frame) {
      if (static_cast<Kind>(frame.kind) == Kind::kCwd) {
        Reader r(frame.payload);
        const std::string cwd = r.str();
        r.finish();
        if (on_cwd_change_) on_cwd_change_(cwd);
        return;
      }
      output(frame);
    });
    last_step_long_ = std::chrono::steady_clock::now() - began >= kWakeAfterStep;
    SessionOutcome outcome;
    try {
      Reader r(reply.payload);
      static_cast<EngineOutcome&>(outcome) = read_outcome(r);
      outcome.cwd = r.str();
      state_ = read_state(r);
      // Whether the file API is disabled is the server's to say, whatever the worker sends.
      const bool disabled = workspace_->disabled();
      apply_workspace_update(r, *workspace_, home_->last);
      workspace_->set_disabled(disabled);
      home_->last.disabled = disabled;
      read_changes_if_any(r, reply.area);
      r.finish();
    } catch (const WireError& e) {
      home_->last.known = false;
      worker_->broke_protocol(e.what());
    }
    return outcome;
  }

  SessionSnapshot snapshot() override {
    if (!can_snapshot()) throw std::logic_error("snapshot of an instance that cannot take one");
    if (!changes_ready_) {
      // No call since the last snapshot carried the memory's changes: ask for them.
      Writer w;
      w.u64(id_);
      w.boolean(!shadow_known_);
      const Frame reply = call(Kind::kSnapshot, {w.buffer()});
      decode(*worker_, reply, [&](Reader& r) {
        read_changes(r, reply.area);
        return 0;
      });
    }
    SessionSnapshot snap;
    snap.handle = handle_;
    snap.extra = extra_;
    snap.memory = shadow_->view();
    // Pages sent whole say nothing of what changed.
    if (!changed_all_) {
      snap.dirty_pages = std::move(changed_pages_);
      snap.dirty_blocks = std::move(changed_blocks_);
    }
    changed_pages_.clear();
    changed_blocks_.clear();
    changed_all_ = false;
    changes_ready_ = false;
    return snap;
  }

  void close() override {
    if (closed_) return;
    closed_ = true;
    if (!worker_->dead()) {
      Writer w;
      w.u64(id_);
      try {
        worker_->call(Kind::kClose, {w.buffer()}, nullptr, kWorkerCallTimeout, {},
                      std::move(woken_));
      } catch (const std::exception&) {
        // The worker died meanwhile: the instance went with it.
      }
    }
    pool_->leave_home(workspace_, home_);
  }

 private:
  Frame call(Kind kind, const std::vector<std::string_view>& parts,
             const WorkerConnection::Progress& progress = {},
             const std::function<void()>& while_waiting = {}) {
    return guarded([&] {
      return worker_->call(kind, parts, progress, kWorkerCallTimeout, while_waiting,
                           std::move(woken_));
    });
  }

  Frame stream_call(Kind kind, const std::vector<std::string_view>& parts,
                    const WorkerConnection::Stream& stream) {
    return guarded([&] {
      return worker_->call_streamed(kind, parts, stream, {}, kWorkerCallTimeout, std::move(woken_));
    });
  }

  // Runs a call; what it throws leaves the worker's state unknown to this instance.
  template <typename Call>
  Frame guarded(Call&& make_call) {
    try {
      return make_call();
    } catch (...) {
      // The worker's replica may have changed without the answer saying how: the next call
      // sends every file again. Changes taken before describe a memory that is gone.
      home_->last.known = false;
      changes_ready_ = false;
      throw;
    }
  }

  void write_update(Writer& w) { write_workspace_update(w, *workspace_, home_->last); }

  // The changes a reply carries when its call left the instance able to take a snapshot.
  void read_changes_if_any(Reader& r, std::span<const char> area) {
    if (r.boolean()) {
      read_changes(r, area);
    } else {
      changes_ready_ = false;
    }
  }

  // Applies a worker's changes to the shadow and keeps them for the next snapshot(). Blocks in
  // the lane's `area` are copied out once each: the worker may change the area meanwhile, which
  // changes only what this answer says.
  void read_changes(Reader& r, std::span<const char> area) {
    ChangesHeader h = read_changes_header(r, area.size());
    if (h.memory_pages > shadow_->max_pages()) {
      throw WireError("snapshot is larger than the engine's memory limit");
    }
    shadow_->resize(h.memory_pages);
    if (h.blocks) {
      const char* in_area = area.data();
      for (const std::uint32_t b : *h.blocks) {
        const char* bytes = nullptr;
        if (h.in_area) {
          bytes = in_area;
          in_area += kChangeBlockBytes;
        } else {
          bytes = r.raw(kChangeBlockBytes).data();
        }
        shadow_->write_block(b, bytes);
        const std::uint32_t page = b / kChangeBlocksPerPage;
        if (changed_pages_.empty() || changed_pages_.back() != page) {
          changed_pages_.push_back(page);
          changed_blocks_.push_back(0);
        }
        changed_blocks_.back() |= static_cast<std::uint16_t>(1U << (b % kChangeBlocksPerPage));
      }
    } else {
      for (std::uint32_t p = 0; p < h.memory_pages; ++p) {
        shadow_->write_page(p, r.raw(kWasmPageBytes).data());
      }
      changed_all_ = true;
    }
    handle_ = h.handle;
    extra_ = std::move(h.extra);
    changes_ready_ = true;
    shadow_known_ = true;
  }

  // What a restore sends: whether the blocks go over the image (a delta) or zeros, the pages
  // whose blocks are read, ascending, and the snapshot's metadata the worker gets first.
  struct RestorePlan {
    bool delta = false;
    std::vector<std::uint32_t> pages;
    SnapshotSource meta;  // without read_page
  };

  // Checks a restore's source against the shadow's room and plans it. The changes taken before
  // describe a memory that is gone, and are forgotten.
  RestorePlan plan_restore(const SnapshotSource& source, const SnapshotBase* base) {
    if (source.memory_pages > shadow_->max_pages()) {
      throw SnapshotError("Snapshot is larger than the engine's memory limit");
    }
    if (!source.read_page) throw std::runtime_error("Snapshot source has no pages");
    RestorePlan plan;
    plan.delta = source.base_delta_pages && base != nullptr &&
                 base->fingerprint == source.base_fingerprint && source.memory_pages >= base->pages;
    if (plan.delta) {
      for (const std::uint32_t p : *source.base_delta_pages) {
        if (p < source.memory_pages && (plan.pages.empty() || p > plan.pages.back())) {
          plan.pages.push_back(p);
        }
      }
    } else {
      for (std::uint32_t p = 0; p < source.memory_pages; ++p) plan.pages.push_back(p);
    }
    changed_pages_.clear();
    changed_blocks_.clear();
    changed_all_ = false;
    changes_ready_ = false;
    plan.meta.handle = source.handle;
    plan.meta.extra = source.extra;
    plan.meta.memory_pages = source.memory_pages;
    plan.meta.base_fingerprint = source.base_fingerprint;
    if (plan.delta) plan.meta.base_delta_pages = plan.pages;
    shadow_known_ = true;
    return plan;
  }

  // Hands `take` each 4 KiB block the restore sends, ascending, with its bytes (valid while
  // `take` runs): the blocks of the plan's pages that differ from the image (a delta) or from
  // zeros.
  template <typename Take>
  void gather_restore(const SnapshotSource& source, const SnapshotBase* base,
                      const RestorePlan& plan, Take&& take) {
    static const std::vector<std::uint8_t> zero(kChangeBlockBytes, 0);
    for (const std::uint32_t p : plan.pages) {
      const auto page = source.read_page(p);
      if (page && page->size() != kWasmPageBytes) {
        throw SnapshotError("Snapshot page " + std::to_string(p) + " has " +
                            std::to_string(page->size()) + " bytes");
      }
      const std::uint8_t* image = plan.delta ? base_page(*base, p) : nullptr;
      if (!page && image == nullptr) continue;  // zero, as the shadow is
      for (std::uint32_t b = 0; b < kChangeBlocksPerPage; ++b) {
        const std::size_t at = std::size_t{b} * kChangeBlockBytes;
        const std::uint8_t* want = page ? page->data() + at : zero.data();
        const std::uint8_t* have = image != nullptr ? image + at : zero.data();
        if (std::memcmp(want, have, kChangeBlockBytes) == 0) continue;
        take(p * kChangeBlocksPerPage + b, want);
      }
    }
  }

  std::shared_ptr<Pool> pool_;
  std::size_t engine_;
  // Without a mirror (a caller that mounts nothing), the instance gets an empty one of its own.
  SystemClock scratch_clock_;
  std::unique_ptr<Workspace> scratch_;
  Workspace* workspace_;
  std::function<void(const std::string&)> on_cwd_change_;
  std::unique_ptr<ShadowMemory> shadow_;  // from the pool, given back when this ends
  bool shadow_known_ = false;
  // Changes taken since the last snapshot(): the pages they touched (ascending within each
  // reply), or every page; and the handle and globals of the latest.
  std::vector<std::uint32_t> changed_pages_;
  std::vector<std::uint16_t> changed_blocks_;  // per changed page: its changed blocks
  bool changed_all_ = false;
  bool changes_ready_ = false;  // the latest call carried changes: snapshot() needs no call
  std::uint64_t handle_ = 0;
  boost::json::object extra_;
  std::uint64_t id_;
  std::shared_ptr<const SnapshotBase> base_;  // the engine's, or null
  std::shared_ptr<Pool::Home> home_;
  std::shared_ptr<WorkerConnection> worker_;
  // A lane woken for the next call (expect_call); after worker_, so it goes back first.
  WorkerConnection::WokenLane woken_;
  bool last_step_long_ = false;  // the last execute's call lasted kWakeAfterStep or more
  SessionState state_;
  bool closed_ = false;
};

}  // namespace

Engine make_remote_engine(const std::shared_ptr<Pool>& pool, std::size_t index) {
  const Engine& local = pool->engines().at(index);
  Engine engine;
  engine.language = local.language;
  engine.engine_name = local.engine_name;
  engine.build = local.build;
  engine.limits = local.limits;
  engine.run = [pool, index](const ExecutionRequest& request) {
    Writer w;
    w.u32(static_cast<std::uint32_t>(index));
    w.i64(now_ms());
    w.boolean(static_cast<bool>(request.on_output));
    write_request(w, request);
    const std::shared_ptr<WorkerConnection> worker = pool->least_busy();
    const Frame reply = worker->call(Kind::kRun, {w.buffer()}, output_progress(request.on_output),
                                     kWorkerCallTimeout);
    return decode(*worker, reply, [](Reader& r) { return read_outcome(r); });
  };
  if (local.sessions) {
    Sessions sessions;
    sessions.boot = [pool,
                     index](const SessionOptions& options) -> std::unique_ptr<SessionInstance> {
      auto session = std::make_unique<RemoteSession>(pool, index, options);
      session->start(options, nullptr);
      return session;
    };
    sessions.restore = [pool, index](
                           const SessionOptions& options,
                           const SnapshotSource& source) -> std::unique_ptr<SessionInstance> {
      auto session = std::make_unique<RemoteSession>(pool, index, options);
      session->start(options, &source);
      return session;
    };
    if (local.sessions->base) {
      sessions.base = [pool, index] { return pool->base(index); };
    }
    engine.sessions = std::move(sessions);
  }
  return engine;
}

}  // namespace sandbox::workers

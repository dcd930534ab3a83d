#include "workers/pool.h"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <thread>

#include <sys/wait.h>

#include "workers/shadow_memory.h"
#include "workers/zygote.h"

namespace sandbox::workers {
namespace {

// How long the server waits for the zygote to fork a worker.
constexpr auto kSpawnTimeout = std::chrono::seconds(30);
// How long it waits for the zygote to make an engine's image (two boots of the interpreter: about
// a second for Ruby, far longer in a sanitizer build).
constexpr auto kPrepareTimeout = std::chrono::minutes(5);
// The most a zygote sends in one frame (a pid, or a pid and a wait status).
constexpr std::size_t kMaxZygotePayloadBytes = 64;

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    std::string name = sigabbrev_np(sig) ? std::string("SIG") + sigabbrev_np(sig)
                                         : "signal " + std::to_string(sig);
    if (sig == SIGSYS) name += " (a system call outside the seccomp allow-list)";
    return "killed by " + name;
  }
  return "ended (status " + std::to_string(status) + ")";
}

}  // namespace

Pool::Pool(std::vector<Engine> engines, WorkerOptions options)
    : engines_(std::move(engines)), options_(std::move(options)) {
  std::size_t n = options_.workers;
  if (n == 0) n = std::max<std::size_t>(2, std::thread::hardware_concurrency());
  slots_.resize(std::min(n, kMaxWorkerProcesses));
}

Pool::~Pool() {
  {
    std::lock_guard lock(stats_mu_);
    stopping_ = true;
  }
  // Closing a channel ends its worker; closing the zygote's ends the zygote.
  for (auto& slot : slots_) slot.worker.reset();
  homes_.clear();
  zygote_.reset();
  if (zygote_pid_ > 0) {
    int status = 0;
    while (::waitpid(zygote_pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

void Pool::log(const std::string& line) const {
  if (options_.log) options_.log(line);
}

void Pool::start() {
  ZygoteProcess zygote;
  if (options_.engine_names.empty()) {
    zygote = start_zygote(engines_, options_.confine);
  } else {
    std::vector<std::pair<std::string, std::string>> named;
    named.reserve(engines_.size());
    for (std::size_t i = 0; i < engines_.size(); ++i) {
      named.emplace_back(options_.engine_names[i], engines_[i].build);
    }
    zygote = start_zygote_program(named, options_.confine);
  }
  zygote_pid_ = zygote.pid;
  std::weak_ptr<Pool> weak = weak_from_this();
  zygote_ = std::make_shared<WorkerConnection>(
      std::move(zygote.channel), zygote.pid, kMaxZygotePayloadBytes, true, false,
      [weak](const Frame& frame) {
        auto pool = weak.lock();
        if (!pool || static_cast<Kind>(frame.kind) != Kind::kExited) return;
        try {
          Reader r(frame.payload);
          const auto pid = static_cast<int>(r.u32());
          const auto status = static_cast<int>(r.u32());
          const std::string how = describe_status(status);
          {
            std::lock_guard lock(pool->stats_mu_);
            if (pool->stopping_ || pool->retired_.erase(pid) > 0) return;
            pool->last_exit_ = how;
          }
          pool->log("worker " + std::to_string(pid) + " " + how);
        } catch (const WireError&) {
        }
      },
      [weak](const std::string& reason) {
        if (auto pool = weak.lock()) {
          std::lock_guard lock(pool->stats_mu_);
          if (pool->stopping_) return;
        }
        if (auto pool = weak.lock()) {
          pool->log("the zygote ended (" + reason + "): no worker can be replaced any more");
        }
      });
  std::lock_guard lock(mu_);
  for (auto& slot : slots_) fill(slot);
}

void Pool::fill(Slot& slot) {
  const std::uint64_t prepared = prepared_.load();
  auto counted = std::make_shared<std::atomic<bool>>(false);
  slot.worker = spawn(counted);
  slot.counted = std::move(counted);
  slot.prepared = prepared;
}

void Pool::refresh(Slot& slot) {
  if (slot.prepared == prepared_.load() || !slot.worker || slot.worker->dead() || slot.homes > 0 ||
      slot.worker->in_flight() > 0) {
    return;
  }
  const pid_t old = slot.worker->pid();
  {
    std::lock_guard stats_lock(stats_mu_);
    retired_.insert(old);
  }
  if (slot.counted && slot.counted->exchange(false)) --live_;
  try {
    fill(slot);
  } catch (const WorkerLostError&) {
    slot.worker.reset();  // the next call that needs the slot tries again
  }
}

bool Pool::prepare_in_zygote(std::size_t engine) {
  Writer w;
  w.u32(static_cast<std::uint32_t>(engine));
  try {
    Frame frame;
    {
      std::lock_guard lock(spawn_mu_);
      frame = zygote_->call(Kind::kPrepare, {w.buffer()}, nullptr, kPrepareTimeout);
    }
    Reader r(frame.payload);
    const bool made = r.boolean();
    r.finish();
    if (made) ++prepared_;
    return made;
  } catch (const std::exception& e) {
    log(std::string("the zygote could not make an engine's image (") + e.what() +
        "): each worker makes its own");
    return false;
  }
}

std::shared_ptr<WorkerConnection> Pool::spawn(const std::shared_ptr<std::atomic<bool>>& counted) {
  Frame frame;
  {
    std::lock_guard lock(spawn_mu_);
    frame = zygote_->call(Kind::kSpawn, {}, nullptr, kSpawnTimeout);
  }
  if (frame.fds.size() != 1 || frame.payload.size() != 4) {
    throw WorkerLostError("No worker process could be started");
  }
  Reader r(frame.payload);
  const auto pid = static_cast<pid_t>(r.u32());
  std::weak_ptr<Pool> weak = weak_from_this();
  auto worker = std::make_shared<WorkerConnection>(
      std::move(frame.fds[0]), pid, kMaxWorkerPayloadBytes, false, true,
      [weak](const Frame& hello) {
        auto pool = weak.lock();
        if (!pool || static_cast<Kind>(hello.kind) != Kind::kReply) return;
        try {
          Reader rh(hello.payload);
          std::string confinement = rh.str();
          std::lock_guard lock(pool->stats_mu_);
          pool->confinement_ = std::move(confinement);
        } catch (const WireError&) {
        }
      },
      [weak, pid, counted](const std::string& reason) {
        auto pool = weak.lock();
        if (!pool) return;
        if (counted && counted->exchange(false)) --pool->live_;
        {
          std::lock_guard lock(pool->stats_mu_);
          if (pool->stopping_) return;
          ++pool->lost_;
        }
        pool->log("worker " + std::to_string(pid) + " lost (" + reason +
                  "); its calls failed and the next call replaces it");
      });
  ++started_;
  if (counted) {
    counted->store(true);
    ++live_;
  }
  return worker;
}

std::shared_ptr<WorkerConnection> Pool::live(Slot& slot) {
  if (!slot.worker || slot.worker->dead()) {
    const bool replacing = slot.worker != nullptr;
    fill(slot);
    if (replacing) ++restarts_;
    slot.homes = 0;  // the homes of the dead worker move when next entered
  }
  return slot.worker;
}

std::shared_ptr<WorkerConnection> Pool::least_busy() {
  std::lock_guard lock(mu_);
  Slot* best = nullptr;
  for (auto& slot : slots_) {
    if (!slot.worker || slot.worker->dead()) return live(slot);
    if (best == nullptr || slot.worker->in_flight() < best->worker->in_flight()) best = &slot;
  }
  refresh(*best);
  return live(*best);
}

std::shared_ptr<Pool::Home> Pool::enter_home(const Workspace* workspace) {
  std::lock_guard lock(mu_);
  auto& home = homes_[workspace];
  if (home && home->worker && !home->worker->dead()) {
    ++home->sessions;
    return home;
  }
  Slot* best = &slots_[0];
  for (auto& slot : slots_) {
    if (!slot.worker || slot.worker->dead()) {
      best = &slot;
      break;
    }
    if (slot.homes < best->homes) best = &slot;
  }
  auto fresh = std::make_shared<Home>();
  try {
    refresh(*best);
    fresh->worker = live(*best);
  } catch (...) {
    if (!home) homes_.erase(workspace);
    throw;
  }
  fresh->id = next_home_++;
  // The instances of a home whose worker died count down on that old home (it is no longer in
  // the map, so they leave nothing behind); the new home counts only the instances it gets.
  fresh->sessions = 1;
  ++best->homes;
  home = fresh;
  return home;
}

void Pool::leave_home(const Workspace* workspace, const std::shared_ptr<Home>& home) {
  std::shared_ptr<WorkerConnection> worker;
  {
    std::lock_guard lock(mu_);
    if (home->sessions > 0) --home->sessions;
    const auto it = homes_.find(workspace);
    if (home->sessions > 0 || it == homes_.end() || it->second != home) return;
    homes_.erase(it);
    for (auto& slot : slots_) {
      if (slot.worker == home->worker && slot.homes > 0) --slot.homes;
    }
    worker = home->worker;
  }
  if (!worker || worker->dead()) return;
  Writer w;
  w.u64(home->id);
  try {
    worker->call(Kind::kForget, {w.buffer()}, nullptr, kWorkerCallTimeout);
  } catch (const std::exception&) {
    // The worker died meanwhile: its replicas went with it.
  }
}

std::shared_ptr<const SnapshotBase> Pool::base(std::size_t engine) {
  const Engine& e = engines_.at(engine);
  if (!e.sessions || !e.sessions->base) return nullptr;
  std::lock_guard lock(base_mu_);
  if (const auto it = bases_.find(engine); it != bases_.end()) return it->second;
  const bool prepared = prepare_in_zygote(engine);
  // A fresh worker, used for this capture only and then closed: it starts with the image when
  // the zygote made it, and makes it otherwise.
  std::shared_ptr<WorkerConnection> worker = spawn(nullptr);
  Writer w;
  w.u32(static_cast<std::uint32_t>(engine));
  const Frame frame = worker->call(Kind::kBase, {w.buffer()}, nullptr, kWorkerCallTimeout);
  std::shared_ptr<const SnapshotBase> made;
  try {
    Reader r(frame.payload);
    std::optional<BaseMessage> message = read_base(r);
    r.finish();
    if (message) {
      made = make_server_base(std::move(message->fingerprint), message->pages, message->nonzero,
                              message->bytes);
    }
  } catch (const WireError& e) {
    throw WorkerLostError(std::string("The worker process broke the protocol: ") + e.what());
  }
  {
    std::lock_guard stats_lock(stats_mu_);
    retired_.insert(worker->pid());
  }
  bases_[engine] = made;
  if (prepared) {
    // Replaced now, while this call pays for the boot anyway, and not each by the next call that
    // picks it (a fork of a few milliseconds in that call); refresh() there still replaces the
    // workers that are busy now.
    std::lock_guard lock(mu_);
    for (auto& slot : slots_) refresh(slot);
  }
  return made;
}

EngineWorkers::Counts Pool::counts() const {
  return {.live = live_.load(), .lost = lost_.load(), .restarts = restarts_.load()};
}

EngineWorkers::Stats Pool::stats() const {
  EngineWorkers::Stats s;
  {
    std::lock_guard lock(mu_);
    s.workers = slots_.size();
    s.workspaces = homes_.size();
    for (const auto& slot : slots_) {
      if (slot.worker && !slot.worker->dead()) {
        s.pids.push_back(slot.worker->pid());
        s.in_flight += slot.worker->in_flight();
      }
    }
  }
  std::lock_guard lock(stats_mu_);
  s.started = started_;
  s.lost = lost_;
  s.confinement = confinement_;
  s.last_exit = last_exit_;
  return s;
}

std::unique_ptr<ShadowMemory> Pool::take_shadow(std::size_t engine) {
  {
    const std::lock_guard<std::mutex> lock(shadow_mu_);
    auto& idle = idle_shadows_[engine];
    if (!idle.empty()) {
      std::unique_ptr<ShadowMemory> shadow = std::move(idle.back());
      idle.pop_back();
      return shadow;
    }
  }
  return std::make_unique<ShadowMemory>(engines_[engine].limits.memory_bytes);
}

void Pool::give_back_shadow(std::size_t engine, std::unique_ptr<ShadowMemory> shadow) noexcept {
  if (!shadow) return;
  try {
    const std::lock_guard<std::mutex> lock(shadow_mu_);
    auto& idle = idle_shadows_[engine];
    if (idle.size() < kMaxIdleShadows) idle.push_back(std::move(shadow));
  } catch (...) {
    // Out of memory for the list: the shadow is freed instead.
  }
}

}  // namespace sandbox::workers

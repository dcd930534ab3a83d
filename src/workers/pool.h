// Pool: the server's side of EngineWorkers (include/sandbox/isolation.h): the zygote, a fixed
// number of worker slots (each refilled from the zygote when its worker dies), which worker
// holds each /workspace replica, and the engines' base images.
//
// Thread-safety: every member may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <sandbox/isolation.h>

#include "workers/shadow_memory.h"
#include "workers/worker_connection.h"
#include "workers/worker_protocol.h"

namespace sandbox::workers {

// Idle shadows kept per engine: each holds the pages its instances made private (a few MiB for
// Python), and saves the next instance's restore a page fault per 4 KiB block it writes.
inline constexpr std::size_t kMaxIdleShadows = 8;

class Pool : public std::enable_shared_from_this<Pool> {
 public:
  // Where the instances that mount one /workspace mirror live, and the replica state the server
  // and that worker last agreed on. Used under the interpreter key's own serialization.
  struct Home {
    std::shared_ptr<WorkerConnection> worker;
    std::uint64_t id = 0;  // the replica's id in the worker
    ReplicaState last;
    std::size_t sessions = 0;  // guarded by the pool's mutex
  };

  Pool(std::vector<Engine> engines, WorkerOptions options);
  ~Pool();
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // Forks the zygote, then the workers. Throws when a process cannot be made.
  void start();

  const std::vector<Engine>& engines() const { return engines_; }
  const WorkerOptions& options() const { return options_; }

  // The live worker with the fewest calls in flight (a dead one is replaced first).
  std::shared_ptr<WorkerConnection> least_busy();
  // The home of `workspace`'s instances, counting one more instance in it. A new mirror, or one
  // whose worker died, gets the worker with the fewest homes and an unknown replica state.
  std::shared_ptr<Home> enter_home(const Workspace* workspace);
  // Counts one instance less; the last one out makes the worker drop the replica.
  void leave_home(const Workspace* workspace, const std::shared_ptr<Home>& home);
  // The engine's base image, made once by a worker that has run nothing else (so no guest can
  // have tampered with it); null when the engine offers none. Throws when the capture fails.
  // The zygote makes the engine's image first (kPrepare), so that worker and every worker forked
  // after it start with the image instead of each making its own; then each slot worker that
  // holds no home and runs no call is replaced by one that has it (docs/security.md#the-zygote).
  std::shared_ptr<const SnapshotBase> base(std::size_t engine);

  // A shadow for an instance of `engine`: an idle one, whose memory made private by the
  // instances it held before stays so (ShadowMemory::reset puts back only what they wrote), or
  // a new one. Its contents are undefined until reset.
  std::unique_ptr<ShadowMemory> take_shadow(std::size_t engine);
  // Keeps `shadow` for the next instance of `engine` (at most kMaxIdleShadows per engine).
  void give_back_shadow(std::size_t engine, std::unique_ptr<ShadowMemory> shadow) noexcept;

  std::uint64_t next_instance_id() { return next_instance_++; }
  EngineWorkers::Stats stats() const;
  // Atomics only: no lock (EngineWorkers::counts).
  EngineWorkers::Counts counts() const;

 private:
  struct Slot {
    std::shared_ptr<WorkerConnection> worker;
    std::size_t homes = 0;
    // True while the worker counts in live_: cleared by whichever comes first, its loss or its
    // retirement (so each worker is counted out once).
    std::shared_ptr<std::atomic<bool>> counted;
    // prepared_'s value when the worker was forked: it holds the images the zygote had made then.
    std::uint64_t prepared = 0;
  };
  // A new worker from the zygote; `counted` non-null for one of the pool's slots (set, and the
  // worker counted in live_, until it is lost or retired), null for a base capture's. Throws
  // WorkerLostError when none can be had.
  std::shared_ptr<WorkerConnection> spawn(const std::shared_ptr<std::atomic<bool>>& counted);
  // The slot's worker, replaced first when dead. Caller holds mu_.
  std::shared_ptr<WorkerConnection> live(Slot& slot);
  // Forks the slot a new worker, counted in live_ (the old one, if any, is not). Caller holds mu_.
  void fill(Slot& slot);
  // Replaces the slot's worker when it was forked before the zygote's last kPrepare and holds no
  // home and runs no call, so that it starts with every image made so far. The old worker ends
  // when the last caller holding it lets go. Caller holds mu_.
  void refresh(Slot& slot);
  // Asks the zygote to make the engine's image (kPrepare); true when it did.
  bool prepare_in_zygote(std::size_t engine);
  void log(const std::string& line) const;

  std::vector<Engine> engines_;
  WorkerOptions options_;
  std::shared_ptr<WorkerConnection> zygote_;
  pid_t zygote_pid_ = -1;
  std::mutex spawn_mu_;  // one spawn at a time on the zygote's channel

  // Guards the slots and homes; held while a replacement is forked, so never taken by the
  // connections' reader threads (their callbacks take stats_mu_ only).
  mutable std::mutex mu_;
  std::vector<Slot> slots_;
  std::map<const Workspace*, std::shared_ptr<Home>> homes_;
  std::uint64_t next_home_ = 1;
  std::atomic<std::uint64_t> started_{0};
  std::atomic<std::size_t> live_{0};        // slot workers started and not lost
  std::atomic<std::uint64_t> restarts_{0};  // slot workers started in place of a lost one
  std::atomic<std::uint64_t> prepared_{0};  // the zygote's images made so far (kPrepare)
  mutable std::mutex stats_mu_;
  std::atomic<std::uint64_t> lost_{0};  // written under stats_mu_
  std::string confinement_;
  std::string last_exit_;
  bool stopping_ = false;
  // Workers closed on purpose (the base captures, the workers refresh() replaced): their end is
  // no news.
  std::set<int> retired_;

  std::mutex shadow_mu_;
  std::map<std::size_t, std::vector<std::unique_ptr<ShadowMemory>>> idle_shadows_;

  std::mutex base_mu_;
  std::map<std::size_t, std::shared_ptr<const SnapshotBase>> bases_;
  std::atomic<std::uint64_t> next_instance_{1};
};

}  // namespace sandbox::workers

// EngineWorkers (include/sandbox/isolation.h): a Pool and the remote engines over it.
#include <sandbox/isolation.h>

#include "workers/pool.h"
#include "workers/remote_engine.h"

namespace sandbox {
namespace {

class PoolWorkers final : public EngineWorkers {
 public:
  explicit PoolWorkers(std::shared_ptr<workers::Pool> pool) : pool_(std::move(pool)) {}

  Engine engine(std::size_t index) const override {
    return workers::make_remote_engine(pool_, index);
  }

  Stats stats() const override { return pool_->stats(); }

 private:
  std::shared_ptr<workers::Pool> pool_;
};

}  // namespace

std::string_view isolation_name(Isolation isolation) {
  return isolation == Isolation::kProcess ? "process" : "thread";
}

std::optional<Isolation> parse_isolation(std::string_view name) {
  if (name == "process") return Isolation::kProcess;
  if (name == "thread") return Isolation::kThread;
  return std::nullopt;
}

std::shared_ptr<EngineWorkers> EngineWorkers::start(std::vector<Engine> engines,
                                                    WorkerOptions options) {
  auto pool = std::make_shared<workers::Pool>(std::move(engines), std::move(options));
  pool->start();
  return std::make_shared<PoolWorkers>(std::move(pool));
}

}  // namespace sandbox

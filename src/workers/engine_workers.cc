// EngineWorkers (include/sandbox/isolation.h): a Pool and the remote engines over it.
#include <sandbox/isolation.h>

#include "workers/pool.h"
#include "workers/remote_engine.h"
#include "workers/zygote.h"

namespace sandbox {
namespace {

class PoolWorkers final : public EngineWorkers {
 public:
  explicit PoolWorkers(std::shared_ptr<workers::Pool> pool) : pool_(std::move(pool)) {}

  Engine engine(std::size_t index) const override {
    return workers::make_remote_engine(pool_, index);
  }

  Stats stats() const override { return pool_->stats(); }
  Counts counts() const override { return pool_->counts(); }

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

void serve_as_zygote_if_asked(int argc, char** argv,
                              const std::function<Engine(const std::string& name)>& make_engine) {
  workers::serve_as_zygote(argc, argv, make_engine);
}

std::shared_ptr<EngineWorkers> EngineWorkers::start(std::vector<Engine> engines,
                                                    WorkerOptions options) {
  if (!options.engine_names.empty() && options.engine_names.size() != engines.size()) {
    throw std::invalid_argument("WorkerOptions::engine_names must name every engine");
  }
  auto pool = std::make_shared<workers::Pool>(std::move(engines), std::move(options));
  pool->start();
  return std::make_shared<PoolWorkers>(std::move(pool));
}

}  // namespace sandbox

// PreinitSession: a durable interpreter instance for one code context (the state machine and its
// invariants are in preinit_engine.h).
#pragma once

#include <sandbox/engine.h>

#include <functional>
#include <memory>
#include <string>

#include "engine_state.h"
#include "guest.h"

namespace sandbox::preinit {

class PreinitSession final : public SessionInstance {
 public:
  enum class State { kIdle, kInvalid };

  // An instance from the engine's image (booting the image first if needed). Throws on failure.
  static std::unique_ptr<SessionInstance> boot(std::shared_ptr<EngineState> state,
                                               const SessionOptions& options);
  // A fresh instance filled from `source`. Throws on failure (a malformed snapshot included).
  static std::unique_ptr<SessionInstance> restore(std::shared_ptr<EngineState> state,
                                                  const SessionOptions& options,
                                                  const SnapshotSource& source);

  PreinitSession(std::shared_ptr<EngineState> state, std::unique_ptr<Guest> guest,
                 const SessionOptions& options);

  std::string cwd() const override { return cwd_; }
  bool invalid() const override { return state_ == State::kInvalid; }
  SessionOutcome execute(const ExecutionRequest& request) override;
  bool can_snapshot() const override;
  SessionSnapshot snapshot() override;
  void close() override;

 private:
  void update_cwd(const std::string& reported);

  std::shared_ptr<EngineState> engine_;
  Workspace* workspace_;
  std::function<void(const std::string&)> on_cwd_change_;
  std::unique_ptr<Guest> guest_;
  std::string cwd_;
  bool reseed_ = true;
  State state_ = State::kIdle;
};

}  // namespace sandbox::preinit

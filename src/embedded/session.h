// EmbeddedSession: a durable interpreter instance for one code context, following the session
// rules of upstream-engine-host.md §5.7. The state machine and its invariants are documented in
// <sandbox/embedded.h>.
#pragma once

#include <sandbox/embedded.h>

#include <memory>
#include <string>

#include "embedded/guest.h"

namespace sandbox::embedded {

class EmbeddedSession final : public SessionInstance {
 public:
  enum class State { kIdle, kInvalid };

  // Boots a fresh interpreter (_initialize, session_init, after_init). Throws on failure.
  static std::unique_ptr<SessionInstance> boot(std::shared_ptr<const EngineConfig> config,
                                               const SessionOptions& options);
  // Restores a snapshot into a fresh instance (no _initialize, no session_init), then runs
  // after_restore. Throws on failure.
  static std::unique_ptr<SessionInstance> restore(std::shared_ptr<const EngineConfig> config,
                                                  const SessionOptions& options,
                                                  const SnapshotSource& source);

  EmbeddedSession(std::shared_ptr<const EngineConfig> config, std::unique_ptr<GuestInstance> guest,
                  const SessionOptions& options);

  std::string cwd() const override { return cwd_; }
  bool invalid() const override { return state_ == State::kInvalid; }
  SessionOutcome execute(const ExecutionRequest& request) override;
  bool can_snapshot() const override;
  SessionSnapshot snapshot() override;
  void close() override;

 private:
  // §5.7 step 4: a reported directory of the workspace becomes the cwd; anything else resets
  // it to /workspace.
  void update_cwd(const std::string& reported);

  std::shared_ptr<const EngineConfig> config_;
  Workspace* workspace_;
  std::function<void(const std::string&)> on_cwd_change_;
  std::unique_ptr<GuestInstance> guest_;
  std::string cwd_;
  State state_ = State::kIdle;
};

// The WASI options of a session: the engine's /stdlib, the context's /workspace, no environ.
WasiOptions session_wasi_options(const EngineConfig& config, const SessionOptions& options);

}  // namespace sandbox::embedded

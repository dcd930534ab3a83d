// EmbeddedSession: a durable interpreter instance for one code context, following the session
// rules of docs/guest-abi.md#session-states. The state machine and its invariants are documented in
// <sandbox/embedded.h>.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <sandbox/embedded.h>

#include "embedded/engine_state.h"
#include "embedded/guest.h"

namespace sandbox::embedded {

class EmbeddedSession final : public SessionInstance {
 public:
  enum class State { kIdle, kInvalid };

  // An instance from the engine's image (captured first if needed) with the context's
  // /workspace, then after_copy. Throws on failure (std::invalid_argument without a workspace).
  static std::unique_ptr<SessionInstance> boot(std::shared_ptr<EngineState> state,
                                               const SessionOptions& options);
  // A fresh instance filled from `source`, then after_copy. Throws on failure (a malformed
  // snapshot included: a page of the wrong size, missing or malformed globals, too many pages).
  static std::unique_ptr<SessionInstance> restore(std::shared_ptr<EngineState> state,
                                                  const SessionOptions& options,
                                                  const SnapshotSource& source);

  EmbeddedSession(std::shared_ptr<EngineState> state, std::unique_ptr<Guest> guest,
                  const SessionOptions& options);

  std::string cwd() const override { return cwd_; }
  bool invalid() const override { return state_ == State::kInvalid; }
  SessionOutcome execute(const ExecutionRequest& request) override;
  bool can_snapshot() const override;
  SessionSnapshot snapshot() override;
  void close() override;

 private:
  // docs/guest-abi.md#session-states (Q4): a reported directory of the workspace becomes the cwd;
  // anything else resets it to /workspace.
  void update_cwd(const std::string& reported);

  std::shared_ptr<EngineState> engine_;
  Workspace* workspace_;
  std::function<void(const std::string&)> on_cwd_change_;
  std::unique_ptr<Guest> guest_;
  std::string cwd_;
  bool reseed_ = true;
  State state_ = State::kIdle;
};

}  // namespace sandbox::embedded

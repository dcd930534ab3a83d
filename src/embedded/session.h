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

  // An instance in the engine's image state (captured first if needed; an idle one when the
  // engine keeps one) with the context's /workspace, then after_copy. Throws on failure
  // (std::invalid_argument without a workspace).
  static std::unique_ptr<SessionInstance> boot(std::shared_ptr<EngineState> state,
                                               const SessionOptions& options);
  // An instance filled from `source`, then after_copy: for a delta from the engine's image, an
  // instance in the image's state (an idle one when the engine keeps one) with the delta's pages
  // written over it; otherwise a fresh one. Throws on failure (a malformed snapshot included: a
  // page of the wrong size, missing or malformed globals, too many pages).
  static std::unique_ptr<SessionInstance> restore(std::shared_ptr<EngineState> state,
                                                  const SessionOptions& options,
                                                  const SnapshotSource& source);

  EmbeddedSession(std::shared_ptr<EngineState> state, std::unique_ptr<PooledGuest> guest,
                  const SessionOptions& options);
  // Gives the guest back to the engine's idle list (release_guest) unless the session failed.
  ~EmbeddedSession() override;
  EmbeddedSession(const EmbeddedSession&) = delete;
  EmbeddedSession& operator=(const EmbeddedSession&) = delete;

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
  // Ends this session's use of its guest: with `reusable` (the session did not fail), untracked,
  // with its scratch workspace mounted again, back to the engine (EngineState::give_back, which
  // resets it to the image or drops it); otherwise dropped.
  void release_guest(bool reusable);

  std::shared_ptr<EngineState> engine_;
  Workspace* workspace_;
  std::function<void(const std::string&)> on_cwd_change_;
  std::unique_ptr<PooledGuest> pooled_;  // null once released
  Guest* guest_;                         // pooled_'s guest, or null
  std::string cwd_;
  bool reseed_ = true;
  State state_ = State::kIdle;
};

}  // namespace sandbox::embedded

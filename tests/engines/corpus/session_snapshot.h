// Snapshot/restore helpers for the language engines' tests: a booted session over a workspace,
// and restores from copies of its memory, as the interpreter server stores them.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <sandbox/clock.h>
#include <sandbox/engine.h>
#include <sandbox/workspace.h>

namespace sandbox::testing_corpus {

// A copy of one snapshot: memory bytes and the engine's handle and extra.
struct SnapshotCopy {
  std::uint64_t handle = 0;
  boost::json::object extra;
  std::vector<std::uint8_t> memory;

  static SnapshotCopy of(SessionInstance& session) {
    const SessionSnapshot snap = session.snapshot();
    return {snap.handle, snap.extra, {snap.memory.begin(), snap.memory.end()}};
  }

  SnapshotSource source() const {
    return SnapshotSource{
        .handle = handle,
        .extra = extra,
        .memory_pages = static_cast<std::uint32_t>(memory.size() / kWasmPageBytes),
        .read_page = [this](std::uint32_t p) -> std::optional<std::span<const std::uint8_t>> {
          return std::span<const std::uint8_t>(memory).subspan(std::size_t{p} * kWasmPageBytes,
                                                               kWasmPageBytes);
        }};
  }
};

class SnapshotFixture {
 public:
  explicit SnapshotFixture(const Engine& engine) : engine_(engine) {
    session = engine_.sessions->boot(SessionOptions{.workspace = &workspace_});
  }

  // A new session restored from a snapshot of `session` taken now.
  std::unique_ptr<SessionInstance> restore() { return restore_from(*session); }

  std::unique_ptr<SessionInstance> restore_from(SessionInstance& from) {
    EXPECT_TRUE(from.can_snapshot());
    copies_.push_back(std::make_unique<SnapshotCopy>(SnapshotCopy::of(from)));
    return engine_.sessions->restore(SessionOptions{.workspace = &workspace_},
                                     copies_.back()->source());
  }

  // The single text result of `code` ("" when there is none); fails the test on an error.
  std::string text(SessionInstance& s, const std::string& code) {
    const SessionOutcome o = s.execute(ExecutionRequest{code, {}});
    EXPECT_FALSE(o.error) << code << ": " << o.error->name << ": " << o.error->message;
    if (o.results.empty()) return "";
    EXPECT_TRUE(o.results[0].text.has_value()) << code;
    return o.results[0].text.value_or("<json>");
  }

  void expect_text(SessionInstance& s, const std::string& code, const std::string& want) {
    EXPECT_EQ(text(s, code), want) << code;
  }

  Workspace& workspace() { return workspace_; }

 private:
  const Engine& engine_;
  ManualClock clock_;
  Workspace workspace_{clock_};
  std::vector<std::unique_ptr<SnapshotCopy>> copies_;

 public:
  // Declared last: destroyed before the workspace it uses.
  std::unique_ptr<SessionInstance> session;
};

}  // namespace sandbox::testing_corpus

// The Engine contract: what an engine author implements to get a sandbox-workers runtime.
//
// An Engine is a plain value: identity (language, engine name, build id), limits, a stateless
// `run`, and optionally `sessions` that boot and restore durable interpreter instances. The kit
// (runtime.h) implements the wire protocol around it and enforces the rules written below; the
// conformance suite (testing.h) checks an engine against them.
//
//   sandbox::Engine engine{
//       .language = "calc",
//       .engine_name = "calc 1.0",
//       .build = "calc-1.0",
//       .limits = {.fuel = 0, .memory_bytes = 1 << 20, .code_bytes = 65536,
//                  .request_bytes = 98304},
//       .run = [](const sandbox::ExecutionRequest& request) { ... return outcome; },
//   };
//
// Rules the kit enforces (and the reasons):
//  1. `run` and SessionInstance::execute never throw for a guest-level error (a syntax error,
//     an exception in the guest): they return it in EngineOutcome::error, so the caller gets a
//     200 ExecutionResult with the guest's own error name and traceback.
//  2. A resource limit is reported as an error named "ExecutionLimitError". `run` may throw
//     ExecutionLimitError instead (the runtime turns it into that outcome); any other exception
//     from `run` is a host bug and becomes an "EngineError" outcome.
//  3. A session instance that can no longer be trusted (a trap, an interrupted guest) sets
//     `invalid()`: that flag, not an exception, is what makes the server drop it. The next call
//     restores the last good snapshot.
//  4. A round whose outcome is an ExecutionLimitError is never snapshotted.
//  5. `can_snapshot() == false` (the guest holds an open file, say) marks the stored snapshot
//     stale without discarding it.
//  6. A stored snapshot whose `build` differs from the engine's boots fresh instead of
//     restoring: change `build` whenever an old memory image would be unsafe to restore.
//
// Thread-safety: `run` may be called from several threads at once. `sessions.boot` and
// `sessions.restore` may also run concurrently (for different interpreter keys); each returned
// SessionInstance is used by one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <sandbox/workspace.h>

namespace sandbox {

// Resource limits. `fuel` is the per-execution budget of a metered engine (0 = not metered);
// `memory_bytes` the linear-memory cap; `code_bytes` and `request_bytes` are reported to callers
// (the server enforces the protocol's global caps, kMaxCodeBytes and kMaxRequestBytes).
struct EngineLimits {
  std::uint64_t fuel = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t code_bytes = 0;
  std::uint64_t request_bytes = 0;
};

enum class OutputStream { kStdout, kStderr };

// Sees the guest's output while it runs (streaming, docs/protocol.md#streaming-output): called
// on the executing thread with each piece the output capture accepted, as it was accepted
// (decoded as UTF-8 the way logs are, counted against the same output limit; a refused piece is
// never observed). The pieces of a stream, joined, are that stream's text before it is split
// into Logs lines (an incomplete UTF-8 sequence left at the very end only shows up in Logs, as
// U+FFFD). It must not throw and should return quickly: the guest waits for it.
using OutputObserver = std::function<void(OutputStream stream, std::string_view text)>;

// What an engine is asked to run: a script and the environment variables it sees.
struct ExecutionRequest {
  std::string code;
  std::map<std::string, std::string> env_vars;
  // Optional (may be empty): see OutputObserver. Engines built on the embedded host
  // (embedded.h) call it; an engine that captures no output (calc, kv) never does. It does not
  // change the outcome: EngineOutcome::logs stay complete either way.
  OutputObserver on_output = {};
  // Optional (may be empty): set by a caller that can do work after it has delivered the
  // outcome. An engine may then hand it the work that only prepares later runs, instead of doing
  // it before it returns; the embedded host hands over the reset of the run's instance to the
  // image (embedded.h). The caller runs each task it is given once, after the outcome has left,
  // on any thread; a task does not throw, and one never run only costs the reuse it prepared.
  // Unset, the engine does that work itself before it returns. A worker process sets it, so a
  // stateless run's answer does not wait for the reset (docs/security.md#work-after-the-answer).
  std::function<void(std::function<void()> task)> defer = {};
};

// Captured output, split into lines (a trailing empty line dropped).
struct Logs {
  std::vector<std::string> stdout_lines;
  std::vector<std::string> stderr_lines;
};

// One result entry: exactly one of `text` or `json` is set.
struct ResultEntry {
  std::optional<std::string> text;
  std::optional<boost::json::value> json;

  static ResultEntry of_text(std::string t) { return ResultEntry{std::move(t), std::nullopt}; }
  static ResultEntry of_json(boost::json::value j) {
    return ResultEntry{std::nullopt, std::move(j)};
  }
};

struct ExecutionError {
  std::string name;
  std::string message;
  std::vector<std::string> traceback;
  std::optional<std::int64_t> line_number;
};

struct Usage {
  std::uint64_t fuel_consumed = 0;
  std::uint64_t fuel_limit = 0;
  std::uint64_t memory_bytes = 0;
};

// The outcome of one execution. `error` holds a guest error or a limit
// (name "ExecutionLimitError"); `usage` is absent when the engine failed before metering.
struct [[nodiscard]] EngineOutcome {
  Logs logs;
  std::vector<ResultEntry> results;  // at most one entry
  std::optional<ExecutionError> error;
  std::optional<Usage> usage;
};

// A session execution's outcome also carries the working directory after the call.
struct SessionOutcome : EngineOutcome {
  std::string cwd;
};

// The name a limit error carries on the wire.
inline constexpr const char* kExecutionLimitErrorName = "ExecutionLimitError";

// Thrown by an engine (or the Wasm host) when a resource limit stops the guest. Messages used:
// "Execution fuel exhausted", "Output limit exceeded", "Result limit exceeded",
// "Execution time limit exceeded".
class ExecutionLimitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Passed to boot and restore. `workspace` is the interpreter key's /workspace mirror: it outlives
// the instance, and its root identity never changes (mount it, do not copy it). `cwd` is the
// context's stored working directory (absolute, under /workspace). An engine that learns of a
// directory change mid-execution calls `on_cwd_change`.
struct SessionOptions {
  Workspace* workspace = nullptr;
  std::string cwd = std::string(kWorkspaceRoot);
  std::function<void(const std::string&)> on_cwd_change;
};

inline constexpr std::uint32_t kWasmPageBytes = 65'536;
// The unit of SessionSnapshot::dirty_blocks and SnapshotSource::base_delta_blocks: 16 per page.
inline constexpr std::uint32_t kSnapshotBlockBytes = 4'096;

// A delta from a base image in 4 KiB blocks (SnapshotSource::base_delta_blocks): `blocks`,
// strictly ascending (block b is bytes [b * kSnapshotBlockBytes, (b + 1) * kSnapshotBlockBytes)
// of the memory), and `bytes`, kSnapshotBlockBytes for each block in the same order.
struct SnapshotBlocks {
  std::span<const std::uint32_t> blocks;
  std::span<const std::uint8_t> bytes;
};

// What restore() gets back from a stored snapshot. `read_page(p)` returns the 64 KiB of page `p`
// or nullopt when that page was all zero (leave it as instantiated). It never does I/O.
struct SnapshotSource {
  std::uint64_t handle = 0;
  boost::json::object extra;
  std::uint32_t memory_pages = 0;
  std::function<std::optional<std::span<const std::uint8_t>>(std::uint32_t page)> read_page;
  // Set when the snapshot is stored as a delta from the engine's SnapshotBase (Sessions::base)
  // whose fingerprint is `base_fingerprint`: every page not listed (ascending) equals the base's
  // page (zero past the base), so an engine that starts from that image need only read these.
  // Unset: read every page.
  std::optional<std::vector<std::uint32_t>> base_delta_pages;
  std::string base_fingerprint;
  // Optional, only with base_delta_pages: the same delta narrowed to 4 KiB blocks. Its blocks are
  // the only ones that differ from the base's (zero past the base), so an engine that starts
  // from the base may write them where they go instead of reading and comparing whole pages
  // (docs/snapshot-format.md#restore). read_page serves the same memory; the spans stay valid
  // for the restore call. Unset: go by the pages.
  std::optional<SnapshotBlocks> base_delta_blocks;
  // Optional, only with base_delta_pages, in place of base_delta_blocks: the same delta in
  // pieces, handed out as they arrive (a worker process gets a restore's blocks while its server
  // still reads them from storage: docs/security.md#restore-overlap). Each call returns the next
  // piece, every block of it above those of the pieces before, or nullopt once there are no
  // more; the spans stay valid for the restore call. An engine that starts from the base may
  // make its instance ready first and then write each piece where it goes as it comes.
  // read_page serves the same memory (waiting, when it must, for the pieces not handed out yet).
  // Throws what kept a piece from arriving, which fails the restore.
  std::function<std::optional<SnapshotBlocks>()> next_delta_blocks;
};

// What snapshot() returns: an engine-defined root handle and extra restore data (both stored in
// the snapshot record), and a view of the live linear memory, valid until the instance is next
// used or destroyed.
//
// `dirty_pages` is optional write tracking: when set, it lists (in any order) every page whose
// bytes may differ from what they were at the previous snapshot() call on this instance (or,
// for the first call, from the image the instance was restored from or booted with), including
// pages added by memory growth. The server then re-hashes only those pages, which makes the
// snapshot cost proportional to what the step changed. Leave it unset when unknown.
//
// `dirty_blocks` narrows it further when not empty: one entry per entry of `dirty_pages`, the
// mask of the page's 4 KiB blocks that may differ (bit b: bytes [b * 4 KiB, (b + 1) * 4 KiB) of
// the page; a page listed twice: the union). A block whose bit is clear is as it was, so the
// server re-hashes only the blocks set. Empty: every block of a listed page may differ.
struct SessionSnapshot {
  std::uint64_t handle = 0;
  boost::json::object extra;
  std::span<const std::uint8_t> memory;
  std::optional<std::vector<std::uint32_t>> dirty_pages;
  std::vector<std::uint16_t> dirty_blocks;
};

// A live, stateful interpreter for one code context. Used by one thread at a time.
class SessionInstance {
 public:
  virtual ~SessionInstance() = default;
  // The current working directory (absolute, under /workspace).
  virtual std::string cwd() const = 0;
  // True once the instance must not be used again (rule 3).
  virtual bool invalid() const = 0;
  // Runs one step. Never throws for guest errors or limits (rules 1-2); a throw is a host bug,
  // which the server treats like a trap.
  virtual SessionOutcome execute(const ExecutionRequest& request) = 0;
  // A hint, given as a request for this instance's key arrives and before the server's own work
  // on it (its lease, the context's row, the workspace): a call (execute, or another) is likely
  // to follow soon. An instance whose engine runs elsewhere may start waking it, so that the
  // wake-up overlaps that work (docs/security.md#calls-announced). Must be cheap and must not
  // throw; no call need follow. The default does nothing.
  virtual void expect_call() {}
  // False while the guest holds a file descriptor beyond the fixed preopens, or once closed or
  // invalid (rule 5).
  virtual bool can_snapshot() const = 0;
  // Requires can_snapshot(). The memory view stays valid until the next execute or close.
  virtual SessionSnapshot snapshot() = 0;
  // Releases what the instance holds; it is invalid afterwards.
  virtual void close() = 0;
};

// The memory every booted session of an engine starts from (its post-initialisation image). The
// server stores a context's snapshot as the difference from it
// (docs/snapshot-format.md#delta-encoding), so an engine offers a base only when another process
// of the same build captures exactly the same bytes (the fingerprint is what a stored delta is
// checked against).
struct SnapshotBase {
  std::string fingerprint;  // hex; equal fingerprints mean equal pages
  std::uint32_t pages = 0;  // 64 KiB pages
  // Per page, its 64 KiB; null when all zero. Kept alive by `owner`.
  std::vector<const std::uint8_t*> page_bytes;
  // Page index -> page hash (docs/snapshot-format.md#page-hash) of every non-zero page: the
  // baseline of a booted session's first snapshot.
  std::map<std::uint32_t, std::uint64_t> page_hashes;
  std::shared_ptr<const void> owner;
};

// Boot a fresh session, or restore one from a snapshot taken of the same build.
// Both throw on failure (a host problem, reported as an internal error).
struct Sessions {
  std::function<std::unique_ptr<SessionInstance>(const SessionOptions&)> boot;
  std::function<std::unique_ptr<SessionInstance>(const SessionOptions&, const SnapshotSource&)>
      restore;
  // Optional: the image boot() starts from, or null when the engine cannot vouch for it being
  // the same in every process (snapshots are then stored whole). May throw (a failed capture).
  std::function<std::shared_ptr<const SnapshotBase>()> base;
};

struct Engine {
  std::string language;     // e.g. "python"; reported as ExecutionResult.language
  std::string engine_name;  // e.g. "CPython 3.11.2 / sandbox-workers"
  std::string build;        // identity of this build (e.g. sha256 of the final module)
  EngineLimits limits;
  // Stateless execution in a fresh instance.
  std::function<EngineOutcome(const ExecutionRequest&)> run;
  // Absent for a stateless-only engine (contexts: false).
  std::optional<Sessions> sessions;
};

// The outcome the kit reports when an engine throws: empty logs and results, and an error named
// "ExecutionLimitError" (for ExecutionLimitError) or "EngineError", message cut to 2,048 chars.
EngineOutcome engine_error_outcome(const std::exception& e);

}  // namespace sandbox

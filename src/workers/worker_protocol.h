// The messages between the server, its zygote and its worker processes
// (docs/security.md#worker-processes): frame kinds and the encoding of each payload.
//
// Server -> worker calls, each answered by one kReply or kFailure frame with the same call id
// (an execute may send kOutput and kCwd frames first):
//   kRun        engine, now, stream?, request                -> outcome
//   kBoot       engine, instance, workspace, update, cwd, now -> state
//   kRestore    kBoot's fields, snapshot source                -> state, changes?
//               then the blocks to write over the image (or zeros): a restore that reads no
//               page has none, in the frame, as one piece; one that reads pages has them in
//               kRestoreBlocks frames that follow it on its lane (the same call id), in
//               pieces, and an empty piece at the end (docs/security.md#restore-overlap); each
//               piece's bytes in the lane's area where they fit after those of the pieces
//               before, otherwise in its frame
//   kExecute    instance, now, stream?, all?, request, update -> session outcome, state, update,
//                                                                changes?
//   kSnapshot   instance, all?                                -> changes
//   kClose      instance                                      -> (empty)
//   kBase       engine                                        -> base image or none
//   kForget     workspace                                     -> (empty)
// Server -> worker: kLane (call 0, empty, unanswered) carries the worker's ends of a new lane,
// for one call at a time: the socket it reads calls from and the one it sends answers on
// (workers/lane_sockets.h), and the lane's area when the server could make one (a third
// descriptor; docs/security.md#lane-areas).
// The server sends each call on a lane; the worker answers it on that lane, with its kOutput and
// kCwd frames, and closes the lane when the server does. A worker sent a call on the channel
// itself exits.
// Server -> worker, on a lane before a call: kWake (call 0, empty, unanswered): a call follows
// soon; the lane's thread looks for it without sleeping for at most kWokenLaneSpin
// (docs/security.md#calls-announced).
// Worker -> server: the hello (kReply, call 0, how the worker is confined), first on the channel.
// Server -> zygote started as a program: first kEngines (count, then name and build id of each
// engine to make), unanswered.
// Server -> zygote: kSpawn -> kReply (the new worker's pid, with the server's end of its channel
// attached; empty when the fork failed). The zygote also sends kExited (pid, wait status, call 0)
// whenever a worker ends.
// Server -> zygote: kPrepare engine -> kReply (1 when the zygote now holds the engine's image,
// which every worker it forks from then on starts with; 0 when it could not make it).
//
// Everything a worker or the zygote sends is decoded as hostile input (wire.h): a compromised
// worker can make a call fail, never make the server misbehave.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <sandbox/engine.h>
#include <sandbox/errors.h>
#include <sandbox/workspace.h>

#include "workers/memory_baseline.h"
#include "workers/wire.h"

namespace sandbox::workers {

enum class Kind : std::uint32_t {
  kRun = 1,
  kBoot = 2,
  kRestore = 3,
  kExecute = 4,
  kSnapshot = 5,
  kClose = 6,
  kBase = 7,
  kForget = 8,
  kReply = 100,
  kFailure = 101,
  kOutput = 102,
  kCwd = 103,
  kLane = 104,
  kSoon = 105,
  kWake = 106,
  kRestoreBlocks = 107,
  kSpawn = 200,
  kEngines = 201,
  kExited = 202,
  kPrepare = 203,
};

// Set in a call's kind (the frame header's) when the server would stay awake for the answer:
// the worker then announces a long call's answer with kSoon. The rest of the kind is the call's.
inline constexpr std::uint32_t kAnnounceFlag = std::uint32_t{1} << 31;

// How long a call's engine work (a step's execute, a restore) must have lasted for the worker to
// announce its answer. A shorter call's answer comes within the server's first look for it
// (kAnswerSpin, workers/worker_connection.h); before that look, announcing Lua's and
// JavaScript's steps (20-30 µs of engine work) gained nothing, and Python's, Perl's and Ruby's
// (110-270 µs) gained (bench/results.md).
inline constexpr std::chrono::microseconds kAnnounceAfter{50};

// The longest a worker's lane thread looks for the call a kWake announced, or for the execute
// after a restore (next_call_look), before it sleeps in its read again. The server sends kWake
// before its own work on a request (its lease, the context's row, the workspace: 50-150 µs on the
// usual step), so the lane's thread is awake when the call comes; an announced call that does not
// come (the request failed, or needs its files resent) costs the worker this much CPU at most.
inline constexpr std::chrono::microseconds kWokenLaneSpin{300};

// The longest a worker's lane thread looks for the next call awake, after it has answered a call
// that was asked while few calls are in flight (kAnnounceFlag) and came within this long of the
// lane's answer before it: calls in a row, as a caller sends who runs steps one after another.
// The gap between a step's answer and the next step's call, the server's own work between them,
// is 300-400 µs for Lua's and JavaScript's steps in bench/run and 500-700 µs for Python's; a
// call the thread looks for needs no wake-up, which costs 35-60 µs on an idle virtual CPU. When
// the calls stop coming, the last look costs the worker this much CPU
// (docs/security.md#calls-in-a-row).
inline constexpr std::chrono::microseconds kCallsInARowSpin{1000};

// How long a worker's lane thread, having answered a call of `kind` (its frame's, flags and all)
// that came `gap` after the lane's answer before it (none: the lane's first call, or the call
// after a restore, which belongs to the restore's request), looks for the next call awake before
// it sleeps in its read; zero: it sleeps at once. Only calls asked while few calls are in flight
// (kAnnounceFlag) have a look:
//   - a restore, kWokenLaneSpin: the server restores a context only to execute on it, and sends
//     that execute on the same lane as soon as it has the restore's answer
//     (docs/security.md#calls-announced);
//   - any other call that came within kCallsInARowSpin of the answer before it, kCallsInARowSpin
//     (docs/security.md#calls-in-a-row).
std::chrono::microseconds next_call_look(std::uint32_t kind,
                                         std::optional<std::chrono::steady_clock::duration> gap);

// How long a session's step (its execute call, as the server timed it) must have lasted for the
// session to wake its worker's lane ahead of its next call (kWake). The built-in engines' steps
// take 40-130 µs (Lua, JavaScript) and 250-600 µs (Python, Perl, Ruby) on the machines
// bench/run was run on; waking the lane ahead made Perl's and Ruby's steps about 3 % faster, and
// Lua's 5-9 % slower (bench/results.md#calls-announced).
inline constexpr std::chrono::microseconds kWakeAfterStep{200};

// The blocks of one kRestoreBlocks piece, at most (the last one may hold fewer): 64 KiB. The
// server sends a piece as soon as it has read it from storage, and the worker writes it while
// the server reads the next; smaller pieces cost more frames, larger ones leave more of the
// worker's writing after the server's reading (docs/security.md#restore-overlap).
inline constexpr std::size_t kRestorePieceBlocks = 16;

// The longest a worker's lane thread looks for a restore's next piece without sleeping, when it
// works beside its server's thread (docs/security.md#restore-overlap): the server sends pieces
// every 100-300 µs, and a sleeping reader would need a wake-up for each.
inline constexpr std::chrono::microseconds kRestorePieceSpin{200};

// The largest payload the server accepts from a worker: a snapshot of a memory at the Wasm
// 32-bit maximum (4 GiB) and its metadata. Engines' memory limits keep real frames far smaller.
inline constexpr std::size_t kMaxWorkerPayloadBytes = (std::size_t{4} << 30) + (1 << 20);

// ---- Requests and outcomes
// -----------------------------------------------------------------------

void write_request(Writer& w, const ExecutionRequest& request);
ExecutionRequest read_request(Reader& r);

void write_outcome(Writer& w, const EngineOutcome& outcome);
EngineOutcome read_outcome(Reader& r);

// What a call that threw carries back: ExecutionLimitError keeps its type (the kit reports it as
// a limit); a ClassifiedError (a SnapshotError, a WasmError) keeps its kind and becomes an
// ApiError of that kind with its wire message, so every boundary answers it as if the call had
// run in process (docs/errors.md); anything else becomes std::runtime_error with the same
// message.
enum class FailureType : std::uint8_t { kError = 0, kLimit = 1, kClassified = 2 };
struct Failure {
  FailureType type = FailureType::kError;
  std::string message;
  ErrorKind kind = ErrorKind::kUnexpected;  // kClassified only
};
void write_failure(Writer& w, const Failure& failure);
[[nodiscard]] Failure read_failure(Reader& r);
[[noreturn]] void throw_failure(const Failure& failure);

// The queries a SessionInstance answers between calls, sent after every call that changes them.
struct SessionState {
  std::string cwd;
  bool invalid = true;
  bool can_snapshot = false;
};
void write_state(Writer& w, const SessionState& state);
SessionState read_state(Reader& r);

// ---- Workspace replicas -------------------------------------------------------------------------
//
// The worker keeps a replica of each interpreter key's /workspace mirror. Both sides remember the
// tree they last agreed on (ReplicaState: every entry in walk order, files with their content
// hash); an update is the whole current listing with bytes only for files that the other side
// does not have (a path whose hash or size changed), or nothing when the tree is unchanged.

struct ReplicaEntry {
  std::string path;  // absolute
  bool dir = false;
  std::int64_t updated_at = 0;
  std::uint64_t size = 0;
  std::string hash;  // content_hash; empty for a directory
  bool operator==(const ReplicaEntry&) const = default;
};
struct ReplicaState {
  bool known = false;  // false: the other side has nothing (send every file's bytes)
  bool disabled = false;
  std::vector<ReplicaEntry> entries;
};

// Writes the update that brings the other side from `last` to `ws`, and sets `last` to `ws`.
void write_workspace_update(Writer& w, const Workspace& ws, ReplicaState& last);
// Applies an update to `ws` (files sent without bytes keep the bytes `ws` has at that path,
// which must have the announced hash), and sets `last` to the result. Throws WireError for an
// update that does not fit `ws`.
void apply_workspace_update(Reader& r, Workspace& ws, ReplicaState& last);

// ---- Snapshots ---------------------------------------------------------------------------------
//
// A worker sends what changed in an instance's memory since the server's copy (ShadowMemory)
// last agreed with it: the 4 KiB blocks written since, or changed when only the written pages
// are known (MemoryBaseline), or the whole memory when the worker cannot tell. The changes ride on
// the reply of each execute and restore that leaves the instance able to take a snapshot, and on a
// kSnapshot reply.

struct ChangesHeader {
  std::uint64_t handle = 0;
  boost::json::object extra;
  std::uint32_t memory_pages = 0;
  // The blocks whose bytes follow (kChangeBlockBytes each), ascending, each below
  // memory_pages * kChangeBlocksPerPage; unset: every page of the memory follows.
  std::optional<std::vector<std::uint32_t>> blocks;
  // The blocks' bytes are in the lane's area (workers/lane_area.h), block i of `blocks` at
  // offset i * kChangeBlockBytes, rather than in the frame.
  bool in_area = false;
};
// The header, then the bytes of each block listed in `blocks` (every page when null) of
// snapshot.memory: into `area` when the blocks fit in it (the frame then ends with the header),
// otherwise after the header.
void write_changes(Writer& w, const SessionSnapshot& snapshot,
                   const std::vector<std::uint32_t>* blocks, std::span<char> area = {});
// Reads the header; the bytes are left in `r` (read them with r.raw()), exactly as many as it
// announces, or they are in the answer's area of `area_bytes` (in_area; the frame must end with
// the header and the blocks must fit). WireError otherwise.
ChangesHeader read_changes_header(Reader& r, std::size_t area_bytes = 0);

// The stored snapshot a restore starts from: its metadata. The memory to restore is the
// engine's image (a delta: base_delta_pages set, the pages the engine reads) or zeros, with the
// blocks of the call's pieces (RestorePiece) written over it: a page of a delta costs only the
// blocks in which it differs from the image.
struct RestoreSource {
  std::uint64_t handle = 0;
  boost::json::object extra;
  std::uint32_t memory_pages = 0;
  std::optional<std::vector<std::uint32_t>> base_delta_pages;
  std::string base_fingerprint;
  // The CPU the server's thread sent the call from, when it knew: the worker's thread moves off
  // it while it takes the pieces (docs/security.md#restore-overlap).
  std::optional<std::uint32_t> server_cpu;
  // The blocks come in kRestoreBlocks frames; otherwise they are one piece, in this frame.
  bool streamed = true;
};
// `delta`: the worker starts from its image and reads source.base_delta_pages only; otherwise
// it reads every page. Not `streamed`: the caller appends the one piece (write_restore_piece,
// and its bytes unless they are in the lane's area).
void write_restore_source(Writer& w, const SnapshotSource& source, bool delta,
                          std::optional<std::uint32_t> server_cpu, bool streamed);
RestoreSource read_restore_source(Reader& r);

// One piece of a restore's blocks (a kRestoreBlocks frame, or the end of a kRestore frame that
// is not streamed): blocks ascending, each below the restore's memory_pages *
// kChangeBlocksPerPage, and their bytes, kChangeBlockBytes each in that order: in the frame after
// the list, or in the lane's area at `area_offset`. No blocks in a kRestoreBlocks frame: the last
// piece.
struct RestorePiece {
  std::vector<std::uint32_t> blocks;
  std::string_view bytes;  // in the frame, or empty
  std::optional<std::size_t> area_offset;
};
// The bytes follow what this writes (the caller sends them as the frame's next part) unless
// `area_offset` says where in the lane's area the caller put them.
void write_restore_piece(Writer& w, std::span<const std::uint32_t> blocks,
                         std::optional<std::size_t> area_offset);
// Reads what write_restore_piece wrote, and the bytes that follow unless they are in the lane's
// area of `area_bytes`, which must hold them (WireError otherwise).
RestorePiece read_restore_piece(Reader& r, std::uint32_t memory_pages, std::size_t area_bytes);

// The engine's base image (or none): fingerprint, size, the non-zero pages and their bytes. No
// hashes: page hashes are seeded per process (src/snapshot/page_hash.h), so the server hashes
// the pages itself.
struct BaseMessage {
  std::string fingerprint;
  std::uint32_t pages = 0;
  std::vector<std::uint32_t> nonzero;  // ascending, each < pages
  std::string_view bytes;              // kWasmPageBytes per page of `nonzero`
};
void write_base(Writer& w, const SnapshotBase* base);
std::optional<BaseMessage> read_base(Reader& r);

}  // namespace sandbox::workers

// Fuzz target: what the server decodes from its worker processes (src/workers/worker_protocol.h,
// src/workers/wire.h), which are untrusted (docs/security.md#worker-processes): a compromised
// worker may send any bytes.
//
// Input: the first byte (modulo 6) picks the decoder, the rest is the payload it reads:
//   0  read_outcome, then Reader::finish      1  read_failure, then finish
//   2  read_state, then finish                3  read_changes_header, then the bytes it
//                                                announces (Reader::raw, a block or a page at
//                                                a time)
//   4  read_base, then finish                 5  apply_workspace_update onto a small Workspace
//                                                (two files and a directory) whose ReplicaState
//                                                is known, as a kExecute reply's update
//
// Checked beyond "no crash": a decoder either succeeds or throws WireError (any other exception
// escapes and fails the run); what succeeded re-encodes to a payload that decodes to the same
// encoding; page and block lists are strictly ascending and below the memory's end; a changes
// header leaves exactly the bytes of the blocks (or pages) it announces, and
// a base exactly the bytes of its non-zero pages. After an update that succeeds, the tree is within
// kMaxWorkspaceEntries, kMaxTotalBytes and kMaxFileBytes, every path normalizes to itself, and
// the ReplicaState describes the tree; after one that throws, the tree (serialize()), the
// disabled flag and the ReplicaState are unchanged. Nothing is allocated from a decoded count
// here: the Reader checks counts against the bytes left.
//
// FUZZ_TRACE=1 in the environment prints what each input decoded to (for writing seeds).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sandbox/clock.h>
#include <sandbox/workspace.h>

#include "fuzz_assert.h"
#include "fuzz_input.h"
#include "workers/lane_area.h"
#include "workers/wire.h"
#include "workers/worker_protocol.h"

namespace {

using namespace sandbox;
using namespace sandbox::workers;

bool ascending_below(const std::vector<std::uint32_t>& pages, std::uint32_t limit) {
  for (std::size_t i = 0; i < pages.size(); ++i) {
    if (pages[i] >= limit || (i > 0 && pages[i] <= pages[i - 1])) return false;
  }
  return true;
}

// Decodes `payload` with `read` (then Reader::finish); on success, its encoding by `write` must
// decode again to a value with the same encoding.
template <typename Read, typename Write>
void round_trip(std::string_view payload, Read read, Write write) {
  Reader r(payload);
  auto value = read(r);
  r.finish();
  Writer once;
  write(once, value);
  Reader again(once.buffer());
  auto back = read(again);
  again.finish();
  Writer twice;
  write(twice, back);
  FUZZ_CHECK(once.buffer() == twice.buffer());
}

void changes_header(std::string_view payload) {
  Reader r(payload);
  const ChangesHeader h = read_changes_header(r, kLaneAreaBytes);
  FUZZ_CHECK(h.memory_pages <= (std::uint64_t{4} << 30) / kWasmPageBytes);
  std::size_t pieces = h.memory_pages;
  std::size_t piece_bytes = kWasmPageBytes;
  if (h.blocks) {
    FUZZ_CHECK(ascending_below(*h.blocks, h.memory_pages * kChangeBlocksPerPage));
    pieces = h.blocks->size();
    piece_bytes = kChangeBlockBytes;
  }
  if (h.in_area) {
    // The blocks are in the lane's area, which they fit; the frame ends with the header.
    FUZZ_CHECK(h.blocks && pieces * piece_bytes <= kLaneAreaBytes);
    pieces = 0;
  }
  FUZZ_CHECK(r.left() == pieces * piece_bytes);
  for (std::size_t p = 0; p < pieces; ++p) FUZZ_CHECK(r.raw(piece_bytes).size() == piece_bytes);
  FUZZ_CHECK(r.left() == 0);
  r.finish();
}

void base(std::string_view payload) {
  Reader r(payload);
  const std::optional<BaseMessage> b = read_base(r);
  r.finish();
  if (!b) return;
  FUZZ_CHECK(ascending_below(b->nonzero, b->pages));
  FUZZ_CHECK(b->bytes.size() == b->nonzero.size() * std::size_t{kWasmPageBytes});
}

bool same_rows(const std::vector<WorkspaceRow>& a, const std::vector<WorkspaceRow>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].path != b[i].path || a[i].data != b[i].data || a[i].updated_at != b[i].updated_at) {
      return false;
    }
  }
  return true;
}

std::vector<ReplicaEntry> by_path(std::vector<ReplicaEntry> entries) {
  std::sort(entries.begin(), entries.end(),
            [](const ReplicaEntry& a, const ReplicaEntry& b) { return a.path < b.path; });
  return entries;
}

void workspace_update(std::string_view payload) {
  ManualClock clock;
  Workspace ws(clock);
  ws.write("/workspace/a.txt", "alpha");
  ws.mkdir("/workspace/d", false);
  ws.write("/workspace/d/b.bin", std::string_view("\x00\x01\x02\xff", 4));
  // The state both sides agreed on: the tree as it is now.
  ReplicaState last;
  {
    Writer w;
    write_workspace_update(w, ws, last);
  }
  FUZZ_CHECK(last.known);
  const std::vector<WorkspaceRow> rows_before = ws.serialize();
  const bool disabled_before = ws.disabled();
  const std::vector<ReplicaEntry> entries_before = last.entries;

  Reader r(payload);
  try {
    apply_workspace_update(r, ws, last);
  } catch (const WireError&) {
    FUZZ_CHECK(same_rows(ws.serialize(), rows_before));
    FUZZ_CHECK(ws.disabled() == disabled_before);
    FUZZ_CHECK(last.known && last.entries == entries_before);
    throw;
  }
  const WorkspaceStats stats = ws.stats();
  FUZZ_CHECK(stats.entries <= kMaxWorkspaceEntries);
  FUZZ_CHECK(stats.bytes <= kMaxTotalBytes);
  const std::vector<WorkspaceRow> rows = ws.serialize();
  FUZZ_CHECK(rows.size() == stats.entries);
  for (const WorkspaceRow& row : rows) {
    FUZZ_CHECK(normalize_workspace_path(row.path).absolute == row.path);
    if (row.data) FUZZ_CHECK(row.data->size() <= kMaxFileBytes);
  }
  // The receiver's record of the agreed tree is the tree: describing the tree anew gives the
  // entries of `last` (as a set: an update need not list them in walk order).
  FUZZ_CHECK(last.known && last.disabled == ws.disabled());
  ReplicaState now;
  {
    Writer w;
    write_workspace_update(w, ws, now);
  }
  FUZZ_CHECK(by_path(last.entries) == by_path(now.entries));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const int selector = in.u8() % 6;
  const std::string_view payload = in.rest();
  static const bool trace = std::getenv("FUZZ_TRACE") != nullptr;
  try {
    switch (selector) {
      case 0:
        round_trip(payload, read_outcome, write_outcome);
        break;
      case 1:
        round_trip(payload, read_failure, write_failure);
        break;
      case 2:
        round_trip(payload, read_state, write_state);
        break;
      case 3:
        changes_header(payload);
        break;
      case 4:
        base(payload);
        break;
      case 5:
        workspace_update(payload);
        break;
    }
  } catch (const WireError& e) {
    // The one way a decoder may refuse a payload.
    if (trace) std::fprintf(stderr, "%d refused: %s\n", selector, e.what());
    return 0;
  }
  if (trace) std::fprintf(stderr, "%d decoded\n", selector);
  return 0;
}

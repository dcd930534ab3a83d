// Fuzz target: workspace paths and operations (include/sandbox/workspace.h). The input is a
// sequence of operations on one Workspace; each starts with an op byte, and its arguments are
// length-prefixed strings and single bytes (fuzz_input.h):
//
//   0 normalize_workspace_path(path, cwd)     1 mkdir(path, recursive)
//   2 write(path, content, encoding)          3 write of a file at/over the 1 MiB limit
//   4 rename(from, to)                        5 remove(path, recursive, force)
//   6 list(path, recursive)                   7 read(path, encoding) and stat / exists
//   8 apply_sync(dirs, files, deleted?, manifest?)
//   9 restore_from(rows)                     10 restore_from(serialize()) (must be identity)
//  11 set_disabled(flag)                     12 changes(since the previous 12)
//
// Checked beyond "no crash": only WorkspaceError escapes an operation; a normalized path is
// canonical and normalizing it again changes nothing; the tree stays within kMaxWorkspaceEntries
// and kMaxTotalBytes (except after a failed apply_sync, until the next sync or restore that
// succeeds); serialize() then restore_from()
// into a fresh workspace gives the same rows and manifest; changes().snapshot == file_hashes().
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <sandbox/clock.h>
#include <sandbox/workspace.h>

#include "fuzz_assert.h"
#include "fuzz_input.h"

namespace {

using namespace sandbox;

constexpr int kMaxOps = 64;
// 1 MiB writes per input: enough for EFBIG and a few large files, few enough that hashing the
// tree stays fast (the entry-count limit is reachable with small writes).
constexpr int kMaxBigWrites = 3;

void check_normalized(std::string_view path, std::string_view cwd) {
  NormalizedPath n;
  try {
    n = normalize_workspace_path(path, cwd);
  } catch (const WorkspaceError&) {
    return;
  }
  std::string joined(kWorkspaceRoot);
  for (const auto& s : n.segments) {
    FUZZ_CHECK(!s.empty() && s != "." && s != ".." && s.find('/') == std::string::npos);
    joined += "/" + s;
  }
  FUZZ_CHECK(n.absolute == joined);
  const NormalizedPath again = normalize_workspace_path(n.absolute, "/workspace/elsewhere");
  FUZZ_CHECK(again.absolute == n.absolute && again.segments == n.segments);
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

void check_round_trip(const Workspace& ws, const Clock& clock) {
  const auto rows = ws.serialize();
  Workspace copy(clock);
  copy.restore_from(rows);
  FUZZ_CHECK(same_rows(copy.serialize(), rows));
  const Manifest a = ws.manifest(), b = copy.manifest();
  FUZZ_CHECK(a.dirs == b.dirs && a.files == b.files);
}

std::vector<std::uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ManualClock clock;
  Workspace ws(clock);
  fuzz::FuzzInput in(data, size);
  bool limits_hold = true;  // false after a failed apply_sync, until a sync or restore succeeds
  FileHashes since;
  int big_writes = 0;
  for (int n = 0; n < kMaxOps && !in.empty(); ++n) {
    const int op = in.u8() % 13;
    clock.advance(1);
    try {
      switch (op) {
        case 0: {
          const std::string_view path = in.short_string();
          const std::string_view cwd = in.short_string();
          check_normalized(path, kWorkspaceRoot);
          if (cwd.starts_with("/workspace")) check_normalized(path, cwd);
          break;
        }
        case 1: {
          const std::string_view path = in.short_string();
          ws.mkdir(path, in.u8() & 1);
          break;
        }
        case 2: {
          const std::string_view path = in.short_string();
          const std::string_view content = in.short_string();
          ws.write(path, content, (in.u8() & 1) ? Encoding::kBase64 : Encoding::kUtf8);
          break;
        }
        case 3: {
          const std::string_view path = in.short_string();
          if (++big_writes > kMaxBigWrites) break;
          const std::string content(kMaxFileBytes + (in.u8() & 1), 'x');
          ws.write(path, content);
          break;
        }
        case 4: {
          const std::string_view from = in.short_string();
          ws.rename(from, in.short_string());
          break;
        }
        case 5: {
          const std::string_view path = in.short_string();
          const std::uint8_t flags = in.u8();
          ws.remove(path, flags & 1, flags & 2);
          break;
        }
        case 6: {
          const std::string_view path = in.short_string();
          (void)ws.list(path, in.u8() & 1);
          break;
        }
        case 7: {
          const std::string_view path = in.short_string();
          const bool exists = ws.exists(path);
          const auto result = ws.read(path, (in.u8() & 1) ? Encoding::kBase64 : Encoding::kUtf8);
          FUZZ_CHECK(exists);
          FUZZ_CHECK(ws.stat(path).size == result.size);
          break;
        }
        case 8: {
          SyncRequest request;
          for (int i = in.u8() % 4; i > 0; --i) request.dirs.emplace_back(in.short_string());
          for (int i = in.u8() % 4; i > 0; --i) {
            SyncFile f;
            f.path = in.short_string();
            f.data = bytes_of(in.short_string());
            f.updated_at = in.u8();
            request.files.push_back(std::move(f));
          }
          const std::uint8_t flags = in.u8();
          if (flags & 1) {
            request.deleted.emplace();
            for (int i = in.u8() % 4; i > 0; --i) request.deleted->emplace_back(in.short_string());
          }
          if (flags & 2) {
            request.manifest.emplace();
            for (int i = in.u8() % 4; i > 0; --i) {
              const std::string key(in.short_string());
              (*request.manifest)[key] = std::string(in.short_string());
            }
          }
          // A sync that fails may leave the tree part-way past the limits (the runtime then
          // drops it, docs/protocol.md Y6); one that succeeds leaves it within them.
          try {
            (void)ws.apply_sync(request);
          } catch (const WorkspaceError&) {
            limits_hold = false;
            throw;
          }
          limits_hold = true;
          break;
        }
        case 9: {
          std::vector<WorkspaceRow> rows;
          for (int i = in.u8() % 6; i > 0; --i) {
            WorkspaceRow row;
            row.path = in.short_string();
            const std::string_view content = in.short_string();
            if (in.u8() & 1) row.data = bytes_of(content);
            row.updated_at = in.u8();
            rows.push_back(std::move(row));
          }
          ws.restore_from(rows);
          limits_hold = true;  // rows past the limits are skipped
          break;
        }
        case 10:
          check_round_trip(ws, clock);
          break;
        case 11:
          ws.set_disabled(in.u8() & 1);
          break;
        case 12: {
          const Changes changes = ws.changes(since);
          FUZZ_CHECK(changes.snapshot == ws.file_hashes());
          since = changes.snapshot;
          break;
        }
      }
    } catch (const WorkspaceError&) {
      // The documented failure of every operation; the workspace is unchanged.
    }
    if (limits_hold) {
      const WorkspaceStats stats = ws.stats();
      FUZZ_CHECK(stats.entries <= kMaxWorkspaceEntries);
      FUZZ_CHECK(stats.bytes <= kMaxTotalBytes);
    }
  }
  ws.set_disabled(false);
  check_round_trip(ws, clock);
  return 0;
}

// The WASI preview1 host: what a wasm32-wasi guest sees of the world (docs/guest-abi.md#wasi-host).
//
// A WasiHost is the per-instance state behind the `wasi_snapshot_preview1` imports that wasm2c
// code calls (the global C functions `Z_wasi_snapshot_preview1Z_<name>`, defined by
// sandbox_wasi). The embedder creates one host per guest instance, passes `import_context()` as
// the instance's `wasi_snapshot_preview1` context pointer, and attaches the instance's linear
// memory before the first guest call.
//
// Deny by default: the guest gets captured stdout/stderr, an empty stdin, its arguments and
// environment, clocks, random bytes, and three fixed directories. Everything else (sockets,
// polling, links, timestamps, pwrite, truncation, spawning) answers EPERM (63). Every guest
// pointer is bounds-checked: a bad pointer is EFAULT (21), never a host crash.
//
// Outcomes that stop the guest are traps (src/wasm/host_call.h), raised only from the import
// shims after every C++ object of the call is gone:
//   proc_exit(code)        SANDBOX_TRAP_EXIT (the code in exit_code())
//   output over the limit  SANDBOX_TRAP_OUTPUT_LIMIT (report ExecutionLimitError
//                          "Output limit exceeded"; the instance is invalid)
//   proc_raise             SANDBOX_TRAP_HOST_ERROR
//   a host failure         SANDBOX_TRAP_HOST_ERROR (e.g. out of host memory; see host_error())
//
// File-descriptor table (the invariants restore relies on; docs/guest-abi.md#file-descriptors):
//   1. fd 0 is stdin (an empty read-only file: reads return EOF, writes EBADF), fd 1 stdout,
//      fd 2 stderr (write-only pipes captured into logs()).
//   2. The preopens follow in this fixed order: 3 = /stdlib (the engine's read-only tree),
//      4 = /dev (holding only `null`), 5 = /workspace (only when a Workspace is mounted).
//      fd_base() = 3 + number of preopens (5 or 6) is the first fd a guest open can return.
//      wasi-libc keeps the preopen numbers in linear memory, so every host built with the same
//      options numbers them identically: a restored memory image finds them where it left them.
//   3. Numbering is append-only: a new fd is always one more than the largest fd ever handed
//      out by this host since it was made or last reset (restore_fixed_fds() with no guest
//      descriptor open starts again at fd_base()); a closed number is never reused.
//   4. Slots below fd_base() never hold anything the guest opened (fd_renumber into them is
//      refused with ENOTSUP), so has_open_guest_fds() — some fd >= fd_base() is open — is
//      exactly "host-side file state exists that a memory snapshot cannot carry".
//   5. A guest may close a fixed descriptor or renumber it away; restore_fixed_fds() puts the
//      fixed slots back (an instance reused for another stateless run gets them all, numbered
//      as in a new host: one caller never sees how many files an earlier one opened).
//
// /workspace is the Workspace's root node itself, not a copy: guest writes land in the tree the
// file API and the sync protocol read. Files the guest creates or writes get updated_at = now.
// The Workspace's disabled() flag is read at every call. Policy matrix
// (docs/guest-abi.md#wasi-write-policy), where W = the directory fd belongs to /workspace and D =
// the workspace is disabled:
//   path_create_directory, path_unlink_file, path_remove_directory, path_rename:
//       not W -> EPERM (63); W and D -> EACCES (2); otherwise performed.
//   path_open: not W -> EPERM with O_CREAT or O_TRUNC (except on the existing /dev/null);
//       W and D -> EACCES for any open; otherwise performed.
//   fd_readdir: W and D -> EACCES.
// Guest writes respect the workspace limits: 1 MiB per file (EFBIG), 16 MiB in total and 4,096
// entries (ENOSPC). The totals count the tree and everything the guest's descriptors keep alive
// outside it (a file unlinked while open, a directory removed while a descriptor points into
// it, nodes a rollback replaced), since the guest can still write those. Paths never leave the
// directory fd they are resolved against: an absolute path, or `..` above that directory, is
// ENOTCAPABLE (76). Path limits (<sandbox/workspace.h>): a guest path over kMaxPathBytes or
// with a segment over kMaxPathSegmentBytes is ENAMETOOLONG (37), one with a NUL byte EINVAL
// (28); creating or moving something below /workspace deeper than kMaxPathDepth or past
// kMaxPathBytes (as an absolute path) is ENAMETOOLONG.
//
// Thread-safety: a WasiHost is used by the one thread that runs its instance. A StdlibTree is
// immutable once built and may be shared by any number of hosts on any threads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <wasm-rt.h>

#include <sandbox/clock.h>
#include <sandbox/engine.h>
#include <sandbox/workspace.h>

namespace sandbox {

namespace wasi {
class HostState;
}  // namespace wasi

// The read-only file tree mounted at /stdlib: built once per engine, shared by its instances.
// Nodes are WorkspaceNodes so that one set of path walkers serves every mount; nothing may
// modify them after construction.
class StdlibTree {
 public:
  // An empty directory (engines without a library tree).
  static std::shared_ptr<const StdlibTree> empty();
  // Regular files and directories below `dir` (symbolic links are followed; other file types
  // are skipped). Children are ordered by name. Throws std::runtime_error when `dir` is not a
  // readable directory.
  static std::shared_ptr<const StdlibTree> from_directory(const std::filesystem::path& dir);
  // The entries of an uncompressed ZIP archive (method 0, "stored"; no ZIP64). Names are split
  // on '/', empty and "." segments dropped; a ".." segment is rejected ("Invalid archive path");
  // intermediate directories are created as needed; names ending in '/' are directories.
  // Each entry's CRC-32 is verified. Throws std::runtime_error describing the first problem.
  static std::shared_ptr<const StdlibTree> from_zip(std::span<const std::uint8_t> archive);
  static std::shared_ptr<const StdlibTree> from_zip_file(const std::filesystem::path& file);

  const std::shared_ptr<WorkspaceNode>& root() const { return root_; }
  std::uint64_t file_count() const { return files_; }
  std::uint64_t total_bytes() const { return bytes_; }
  // The node at `path` ("a/b.py", relative to the root; "" is the root), or nullptr.
  const WorkspaceNode* find(std::string_view path) const;

  explicit StdlibTree(std::shared_ptr<WorkspaceNode> root);

 private:
  std::shared_ptr<WorkspaceNode> root_;
  std::uint64_t files_ = 0;
  std::uint64_t bytes_ = 0;
};

struct WasiOptions {
  // Mounted at /stdlib (fd 3); null mounts an empty directory.
  std::shared_ptr<const StdlibTree> stdlib = nullptr;
  // Mounted at /workspace (fd 5) when set; it must outlive the host.
  Workspace* workspace = nullptr;
  std::vector<std::string> args = {"sandbox"};
  // environ, as "KEY=VALUE" strings in key order. Sessions pass none (drivers set env per call).
  std::map<std::string, std::string> env = {};
  // CLOCK_REALTIME (millisecond granularity, as upstream); null = the system clock. Must outlive
  // the host.
  const Clock* clock = nullptr;
  // CLOCK_MONOTONIC in nanoseconds; empty = std::chrono::steady_clock.
  std::function<std::uint64_t()> monotonic_ns = {};
  // Set: random_get returns a deterministic stream from this seed (tests only). Unset: the
  // operating system's CSPRNG (getrandom).
  std::optional<std::uint64_t> random_seed = std::nullopt;
  // Set: inode numbers count up from 2 in the order the guest first sees each file (an
  // engine's image capture, whose boot must see the same numbers in every process). Unset: they
  // are a keyed hash of the node, which keeps host addresses private and needs no table.
  bool sequential_inodes = false;
  // The capture limits (docs/guest-abi.md#output-capture), checked before each piece is stored.
  std::uint64_t output_limit_bytes = 32'768;
  std::size_t output_limit_chunks = 200;
};

class WasiHost {
 public:
  explicit WasiHost(WasiOptions options);
  ~WasiHost();
  WasiHost(const WasiHost&) = delete;
  WasiHost& operator=(const WasiHost&) = delete;

  // The context pointer for the module's `wasi_snapshot_preview1` imports.
  void* import_context();
  // Attaches the guest's linear memory (borrowed; it must outlive the host's use). Required
  // before any guest code that may call WASI runs; until then every import answers EFAULT.
  void attach_memory(wasm_rt_memory_t* memory);

  // Appends one piece of output (docs/guest-abi.md#output-capture): the piece is decoded as UTF-8
  // (invalid sequences become U+FFFD) and its byte length counted; a non-empty piece that would
  // take the total over output_limit_bytes, or arrives when output_limit_chunks pieces are already
  // stored, is dropped and ExecutionLimitError("Output limit exceeded") thrown. Drivers whose
  // interpreter captures output itself use this; guest fd_write on fd 1/2 goes through the same
  // path.
  void capture(OutputStream stream, std::string_view bytes);
  // The captured output split into lines ('\n'; one trailing empty line dropped).
  Logs logs() const;
  // Forgets all captured output and the byte counter (sessions call it before each execute).
  void reset_logs();
  // True once a piece was refused for the limit (also when the guest trapped on it).
  bool output_limit_exceeded() const;
  // Each piece accepted from now on is also handed to `observer` (engine.h's OutputObserver;
  // empty: none), after it is stored. Survives reset_logs(); replace it with {} when the call
  // that wanted it is over. An exception from the observer is swallowed (the guest must not see
  // it; the output is in logs() anyway).
  void set_output_observer(OutputObserver observer);

  // Replaces the environment the guest sees from now on (environ_get).
  void set_env(const std::map<std::string, std::string>& env);

  std::uint32_t fd_base() const;
  bool has_open_guest_fds() const;
  // Reopens the fixed descriptors (invariants 1 and 2) the guest closed or renumbered away, as
  // the host was built, and, when no guest descriptor is open, numbers the next open from
  // fd_base() again (invariant 3). An instance reset for a new stateless run calls it: its
  // memory returns to an image in which they are open and nothing else is.
  void restore_fixed_fds();
  // Mounts `workspace` at /workspace (fd 5) in place of the tree the host was made with, and
  // gives the guest the environment it was made with again: for an instance that passes from one
  // caller to another (a context restored into an idle instance, or an ended context's instance
  // kept for later runs), which must reach neither the earlier caller's files nor its
  // variables. The workspace must outlive the host's use of it. Throws std::logic_error when
  // `workspace` is null, the host was made without a workspace, or a guest descriptor is open
  // (it could point into the earlier tree).
  void remount_workspace(Workspace* workspace);
  // Set once the guest called proc_exit.
  std::optional<std::uint32_t> exit_code() const;
  // What a SANDBOX_TRAP_HOST_ERROR from this host was about ("" if none).
  std::string host_error() const;

 private:
  std::unique_ptr<wasi::HostState> state_;
};

}  // namespace sandbox

// Workspace: the in-memory `/workspace` tree shared by the caller side (the sandbox, where it is
// the source of truth and is persisted) and the runtime side (the interpreter's mirror, memory
// only), exactly as docs/protocol.md#workspace specifies.
//
// Wire compatibility depends on three things this class reproduces bit for bit: path
// normalization (normalize_workspace_path), the 16-hex content hash (content_hash), and the
// insertion order of directory children (every walk is depth-first pre-order in that order, as a
// JavaScript Map iterates).
//
// Thread-safety: a Workspace is not synchronized. Its owner (one Sandbox actor, or one
// InterpreterServer key with the guest instance it runs) serializes every access.
//
// Errors: operations that fail throw WorkspaceError carrying a Node-style errno name (ENOENT,
// EACCES, ...) and the message of docs/protocol.md#workspace-operations; callers map it to an
// ErrorCode (protocol.h). The root node's identity never changes for the life of the Workspace
// (restore_from and apply_sync rebuild in place), because live guest instances hold it as their
// WASI mount.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>

#include <sandbox/clock.h>

namespace sandbox {

inline constexpr std::uint64_t kMaxFileBytes = 1'048'576;     // per file
inline constexpr std::uint64_t kMaxTotalBytes = 16'777'216;   // sum of file sizes
inline constexpr std::uint64_t kMaxWorkspaceEntries = 4'096;  // files + directories, root excluded
inline constexpr std::string_view kWorkspaceRoot = "/workspace";

// Path limits (POSIX NAME_MAX and PATH_MAX). Every way into the tree enforces them, so every
// walk of it (manifest, serialize, list, ...) costs time linear in entries x kMaxPathBytes:
//   - normalize_workspace_path (files API, cwd, apply_sync): a path given over kMaxPathBytes,
//     a NUL byte, a segment over kMaxPathSegmentBytes, or a result deeper than kMaxPathDepth or
//     longer than kMaxPathBytes is refused (ENAMETOOLONG, or EINVAL for the NUL);
//   - restore_from skips rows that break them;
//   - rename refuses a move that would take something in the moved subtree past them;
//   - the WASI host applies the same limits to guest paths and to what a guest creates or
//     moves below /workspace (include/sandbox/wasi.h).
// Longest segment (file or directory name), in bytes.
inline constexpr std::size_t kMaxPathSegmentBytes = 255;
// Longest path, in bytes: a path as given, and an absolute one ("/workspace/a/b").
inline constexpr std::size_t kMaxPathBytes = 4'096;
// Most segments below /workspace ("/workspace/a/b" has depth 2). A 4,096-byte path could name
// 2,043 levels of one-byte names; real trees stay far below 256, and the bound keeps per-level
// costs (the walkers' stacks, a guest's descriptor chains) small.
inline constexpr std::size_t kMaxPathDepth = 256;

// The errno values a workspace operation can fail with (Node-style names on the wire).
enum class Errno {
  kENOENT,
  kEEXIST,
  kEACCES,
  kEISDIR,
  kENOTDIR,
  kEFBIG,
  kENOSPC,
  kENOTEMPTY,
  kEINVAL,
  kENAMETOOLONG
};

// "ENOENT", "EACCES", ...
std::string_view errno_name(Errno e);

class WorkspaceError : public std::runtime_error {
 public:
  WorkspaceError(Errno code, const std::string& message, boost::json::object details = {})
      : std::runtime_error(message), code_(code), details_(std::move(details)) {}
  Errno code() const { return code_; }
  // Extra fields for the error context, e.g. {maxSize, actualSize} for EFBIG.
  const boost::json::object& details() const { return details_; }

 private:
  Errno code_;
  boost::json::object details_;
};

// The result of normalizing a path against /workspace (docs/protocol.md#path-normalization).
struct NormalizedPath {
  std::vector<std::string> segments;  // below /workspace; empty for the root
  std::string absolute;               // "/workspace" or "/workspace/a/b"
};

// docs/protocol.md#path-normalization: absolute paths as given, relative ones joined to `cwd`
// (itself absolute under /workspace); "" and "." segments skipped, ".." pops; throws ENOENT "Path
// is required" for an empty path, EINVAL "Path contains a NUL byte", ENAMETOOLONG for a path (as
// given or normalized) over kMaxPathBytes, a segment over kMaxPathSegmentBytes or a result deeper
// than kMaxPathDepth, and EACCES "Path escapes /workspace: <path>" for anything outside /workspace.
NormalizedPath normalize_workspace_path(std::string_view path,
                                        std::string_view cwd = kWorkspaceRoot);

// docs/protocol.md#workspace-hash: two 32-bit lanes (FNV-1a and an add-multiply lane), printed as
// 16 lowercase hex digits.
std::string content_hash(std::span<const std::uint8_t> bytes);

// One node of the tree. Directories keep their children in insertion order. A node has at most
// one parent. Destroying a node releases its subtree iteratively, so a chain of any depth (a
// guest can hold directories detached from the tree) cannot overflow the stack.
struct WorkspaceNode {
  enum class Type { kFile, kDirectory };
  using Child = std::pair<std::string, std::shared_ptr<WorkspaceNode>>;

  explicit WorkspaceNode(Type t) : type(t) {}
  ~WorkspaceNode();
  WorkspaceNode(const WorkspaceNode&) = delete;
  WorkspaceNode& operator=(const WorkspaceNode&) = delete;
  bool is_dir() const { return type == Type::kDirectory; }
  // The child named `name`, or nullptr.
  std::shared_ptr<WorkspaceNode> find(std::string_view name) const;
  // Inserts or replaces `name`; a replacement keeps its position among the children.
  void put(const std::string& name, std::shared_ptr<WorkspaceNode> node);
  // Removes `name`; returns false if it was not there.
  bool erase(std::string_view name);

  // content_hash(data), computed on first use and kept until the bytes change. Code that
  // changes `data` in place calls data_changed() (the WASI host's writes and truncations do); a
  // file made anew starts without one.
  const std::string& data_hash() const;
  void data_changed() { data_hash_.clear(); }

  Type type;
  std::vector<std::uint8_t> data;  // files only
  std::int64_t updated_at = 0;     // files only (epoch ms)
  std::vector<Child> children;     // directories only

 private:
  mutable std::string data_hash_;  // empty: not computed since the last change
};

enum class Encoding { kUtf8, kBase64 };

struct ReadResult {
  std::string content;  // UTF-8 text (invalid sequences replaced with U+FFFD) or base64
  std::uint64_t size = 0;
  Encoding encoding = Encoding::kUtf8;
  bool is_binary = false;  // not valid UTF-8, or contains a NUL byte
  std::int64_t updated_at = 0;
};

struct ListEntry {
  std::string path;  // absolute
  WorkspaceNode::Type type;
  std::uint64_t size = 0;       // 0 for directories
  std::int64_t updated_at = 0;  // 0 for directories
};

struct StatResult {
  WorkspaceNode::Type type;
  std::uint64_t size = 0;
  std::int64_t updated_at = 0;
};

// A flat row of serialize()/load(): data is nullopt for a directory (updated_at 0).
struct WorkspaceRow {
  std::string path;  // absolute
  std::optional<std::vector<std::uint8_t>> data;
  std::int64_t updated_at = 0;
};

// Absolute file path -> content hash.
using FileHashes = std::map<std::string, std::string>;

struct Manifest {
  std::vector<std::string> dirs;  // every directory (root excluded), sorted by UTF-16 code units
  FileHashes files;
};

struct Changes {
  std::vector<std::string> created;  // in pre-order walk order
  std::vector<std::string> updated;
  std::vector<std::string> deleted;  // sorted
  FileHashes snapshot;               // the current map, to pass as `since` next time
};

struct SyncFile {
  std::string path;
  std::vector<std::uint8_t> data;
  std::int64_t updated_at = 0;
};

// Argument of apply_sync (docs/protocol.md#sync-order). With `manifest`, files not named in it are
// deleted and the result lists the manifest paths whose content is missing or differs; otherwise
// `deleted` (if given) names paths to remove.
struct SyncRequest {
  std::vector<std::string> dirs;
  std::vector<SyncFile> files;
  std::optional<std::vector<std::string>> deleted;
  std::optional<FileHashes> manifest;
};

struct WorkspaceStats {
  std::uint64_t entries = 0;  // files + directories, root excluded
  std::uint64_t bytes = 0;    // sum of file sizes
};

class Workspace {
 public:
  // `clock` stamps updatedAt of written files; it must outlive the Workspace.
  explicit Workspace(const Clock& clock);
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  // The root directory (/workspace). Its identity never changes.
  const std::shared_ptr<WorkspaceNode>& root() const { return root_; }

  // While true, every operation except exists() throws EACCES "File API is disabled for this
  // sandbox"; exists() answers false. Guest WASI access reads this flag at call time.
  bool disabled() const { return disabled_; }
  void set_disabled(bool disabled) { disabled_ = disabled; }

  // The operations of docs/protocol.md#workspace-operations. `cwd` resolves relative paths.
  // Each throws WorkspaceError as that table says.
  ReadResult read(std::string_view path, Encoding encoding = Encoding::kUtf8,
                  std::string_view cwd = kWorkspaceRoot) const;
  // Raw bytes and updatedAt.
  std::pair<std::vector<std::uint8_t>, std::int64_t> read_bytes(
      std::string_view path, std::string_view cwd = kWorkspaceRoot) const;
  // Writes `content` (decoded from base64 first when `encoding` is kBase64; EINVAL when that
  // fails). Checks, in order: root (EISDIR), size (EFBIG), parent (ENOENT/ENOTDIR), target is a
  // directory (EISDIR), total bytes (ENOSPC), entry count for a new file (ENOSPC).
  void write(std::string_view path, std::string_view content, Encoding encoding = Encoding::kUtf8,
             std::string_view cwd = kWorkspaceRoot);
  void write_bytes(std::string_view path, std::span<const std::uint8_t> bytes,
                   std::string_view cwd = kWorkspaceRoot);
  void mkdir(std::string_view path, bool recursive, std::string_view cwd = kWorkspaceRoot);
  std::vector<ListEntry> list(std::string_view path, bool recursive,
                              std::string_view cwd = kWorkspaceRoot) const;
  // `remove` in docs/protocol.md#workspace-operations (upstream's `delete`).
  void remove(std::string_view path, bool recursive, bool force,
              std::string_view cwd = kWorkspaceRoot);
  // Moves the node (identity and updatedAt kept). An existing destination keeps its position
  // among its siblings; a new one is appended. Deviation from upstream: moving a directory into
  // its own subtree is EINVAL "Cannot move a directory into itself: <to>" (upstream loses it),
  // and a move that would put something of the moved subtree deeper than kMaxPathDepth or
  // past kMaxPathBytes is ENAMETOOLONG.
  void rename(std::string_view from, std::string_view to, std::string_view cwd = kWorkspaceRoot);
  // Never throws.
  bool exists(std::string_view path, std::string_view cwd = kWorkspaceRoot) const noexcept;
  StatResult stat(std::string_view path, std::string_view cwd = kWorkspaceRoot) const;

  // docs/protocol.md#manifest-and-changes.
  Manifest manifest() const;
  FileHashes file_hashes() const;
  Changes changes(const FileHashes& since) const;
  std::vector<WorkspaceRow> serialize() const;
  // Replaces the whole tree with `rows` (upstream's load + restoreFrom), keeping the root's
  // identity. Per row: a leading `workspace` segment is stripped, missing parents are created
  // (a file in the way is replaced), null data makes a directory unless one exists, otherwise a
  // file with the row's bytes and updatedAt. The root row, rows with "." or ".." segments and
  // rows whose path breaks the path limits (length, segment length, depth, a NUL byte) are
  // skipped, and so are rows past the limits (a file over kMaxFileBytes, one that would take
  // the total past kMaxTotalBytes, one needing more entries than kMaxWorkspaceEntries leaves).
  // Never throws for bad rows. Load into a fresh tree = new Workspace + restore_from.
  void restore_from(const std::vector<WorkspaceRow>& rows);
  WorkspaceStats stats() const;

  // docs/protocol.md#sync-order, in its fixed order. Returns `missing` (empty unless a manifest was
  // given), in manifest key order. Throws what normalize_workspace_path throws (EACCES outside
  // /workspace, ENAMETOOLONG or EINVAL past the path limits) for a path in dirs/files (the
  // steps before it stay applied); bad paths in `deleted` are ignored. As upstream, step 3 compares
  // manifest keys and step 4 compares `dirs` as given (callers send canonical paths). Ignores
  // `disabled`. Enforces the limits (Y6): a file over kMaxFileBytes is EFBIG, more files than
  // kMaxWorkspaceEntries or more bytes than kMaxTotalBytes in the request, more than
  // kMaxWorkspaceEntries entries added, or a result past either limit is ENOSPC; the tree may
  // then be partly synced, and the caller must drop it.
  std::vector<std::string> apply_sync(const SyncRequest& request);

  std::int64_t now_ms() const { return clock_.now_ms(); }

 private:
  const Clock& clock_;
  std::shared_ptr<WorkspaceNode> root_;
  bool disabled_ = false;
};

}  // namespace sandbox

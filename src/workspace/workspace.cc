// The Workspace operations (docs/protocol.md#workspace-operations,
// docs/protocol.md#manifest-and-changes, docs/protocol.md#sync-order). Behaviour (check order,
// errno, message text) follows the upstream implementation; deviations are noted inline and in
// docs/protocol.md#workspace-operations.
#include <algorithm>
#include <unordered_set>

#include <sandbox/workspace.h>

#include "base/base64.h"
#include "base/utf8.h"
#include "workspace/tree_walk.h"
#include "workspace/utf16_order.h"

namespace sandbox {
namespace {

using NodePtr = std::shared_ptr<WorkspaceNode>;
using Type = WorkspaceNode::Type;

constexpr std::string_view kDisabledMessage = "File API is disabled for this sandbox";

NodePtr make_dir() { return std::make_shared<WorkspaceNode>(Type::kDirectory); }

NodePtr make_file(std::vector<std::uint8_t> data, std::int64_t updated_at) {
  auto node = std::make_shared<WorkspaceNode>(Type::kFile);
  node->data = std::move(data);
  node->updated_at = updated_at;
  return node;
}

[[noreturn]] void fail(Errno code, const std::string& message) {
  throw WorkspaceError(code, message);
}

// The node at `segments`, or nullptr when a segment is missing. Passing through a file is
// ENOTDIR "Not a directory".
NodePtr lookup(const NodePtr& root, const std::vector<std::string>& segments) {
  NodePtr node = root;
  for (const auto& seg : segments) {
    if (!node->is_dir()) fail(Errno::kENOTDIR, "Not a directory");
    NodePtr child = node->find(seg);
    if (!child) return nullptr;
    node = std::move(child);
  }
  return node;
}

// The directory that holds the last segment; every parent must exist and be a directory.
NodePtr walk_parent(const NodePtr& root, const std::vector<std::string>& segments) {
  NodePtr dir = root;
  for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
    NodePtr child = dir->find(segments[i]);
    if (!child) fail(Errno::kENOENT, "No such file or directory");
    if (!child->is_dir()) fail(Errno::kENOTDIR, "Not a directory");
    dir = std::move(child);
  }
  return dir;
}

using workspace_tree::walk_preorder;

std::span<const std::uint8_t> as_bytes(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

bool looks_binary(const std::vector<std::uint8_t>& bytes) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return !is_valid_utf8(text) || text.find('\0') != std::string_view::npos;
}

// The directory at `segments`, created where missing; a non-directory in the way is replaced
// (keeping its position). `created`, when given, counts the directories made.
NodePtr ensure_dir_path(const NodePtr& root, const std::vector<std::string>& segments,
                        std::size_t count, std::uint64_t* created = nullptr) {
  NodePtr dir = root;
  for (std::size_t i = 0; i < count; ++i) {
    NodePtr child = dir->find(segments[i]);
    if (!child || !child->is_dir()) {
      child = make_dir();
      dir->put(segments[i], child);
      if (created != nullptr) ++*created;
    }
    dir = std::move(child);
  }
  return dir;
}

// How many entries putting something at `segments` adds: the missing parents and the leaf.
std::uint64_t new_entries(const NodePtr& root, const std::vector<std::string>& segments) {
  NodePtr node = root;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    NodePtr child = node->is_dir() ? node->find(segments[i]) : nullptr;
    if (!child) return segments.size() - i;
    node = std::move(child);
  }
  return 0;
}

[[noreturn]] void fail_too_many_entries() {
  fail(Errno::kENOSPC, "Workspace exceeds " + std::to_string(kMaxWorkspaceEntries) + " entries");
}

[[noreturn]] void fail_too_many_bytes() { fail(Errno::kENOSPC, "Workspace exceeds 16 MiB total"); }

// A sync may add at most kMaxWorkspaceEntries entries before its deletions run (a caller that
// replaces every path of a full workspace needs that many), so the tree holds at most twice the
// limit while a sync is applied; the result must be within the limits.
void check_sync_growth(std::uint64_t created) {
  if (created > kMaxWorkspaceEntries) fail_too_many_entries();
}

// Removes whatever `path` names (file or subtree); invalid or missing paths are ignored.
void remove_path(const NodePtr& root, const std::string& path) {
  NormalizedPath n;
  try {
    n = normalize_workspace_path(path, kWorkspaceRoot);
  } catch (const WorkspaceError&) {
    return;
  }
  if (n.segments.empty()) return;
  NodePtr dir = root;
  for (std::size_t i = 0; i + 1 < n.segments.size(); ++i) {
    NodePtr child = dir->find(n.segments[i]);
    if (!child || !child->is_dir()) return;
    dir = std::move(child);
  }
  dir->erase(n.segments.back());
}

}  // namespace

Workspace::Workspace(const Clock& clock) : clock_(clock), root_(make_dir()) {}

namespace {
void check_enabled(bool disabled) {
  if (disabled) fail(Errno::kEACCES, std::string(kDisabledMessage));
}
}  // namespace

ReadResult Workspace::read(std::string_view path, Encoding encoding, std::string_view cwd) const {
  auto [bytes, updated_at] = read_bytes(path, cwd);
  ReadResult out;
  out.size = bytes.size();
  out.encoding = encoding;
  out.is_binary = looks_binary(bytes);
  out.updated_at = updated_at;
  if (encoding == Encoding::kBase64) {
    out.content = base64_encode(bytes);
  } else {
    out.content =
        sanitize_utf8(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }
  return out;
}

std::pair<std::vector<std::uint8_t>, std::int64_t> Workspace::read_bytes(
    std::string_view path, std::string_view cwd) const {
  check_enabled(disabled_);
  const NormalizedPath n = normalize_workspace_path(path, cwd);
  const NodePtr node = lookup(root_, n.segments);
  if (!node) fail(Errno::kENOENT, "No such file: " + std::string(path));
  if (node->is_dir()) fail(Errno::kEISDIR, "Is a directory: " + std::string(path));
  return {node->data, node->updated_at};
}

void Workspace::write(std::string_view path, std::string_view content, Encoding encoding,
                      std::string_view cwd) {
  if (encoding == Encoding::kUtf8) {
    write_bytes(path, as_bytes(content), cwd);
    return;
  }
  check_enabled(disabled_);
  const NormalizedPath n = normalize_workspace_path(path, cwd);
  if (n.segments.empty()) fail(Errno::kEISDIR, "Cannot write to the /workspace root");
  const auto decoded = base64_decode(content);
  if (!decoded) fail(Errno::kEINVAL, "Invalid base64 content");
  write_bytes(path, *decoded, cwd);
}

void Workspace::write_bytes(std::string_view path, std::span<const std::uint8_t> bytes,
                            std::string_view cwd) {
  check_enabled(disabled_);
  const NormalizedPath n = normalize_workspace_path(path, cwd);
  if (n.segments.empty()) fail(Errno::kEISDIR, "Cannot write to the /workspace root");
  if (bytes.size() > kMaxFileBytes) {
    boost::json::object details;
    details["maxSize"] = kMaxFileBytes;
    details["actualSize"] = bytes.size();
    throw WorkspaceError(Errno::kEFBIG, "File exceeds " + std::to_string(kMaxFileBytes) + " bytes",
                         std::move(details));
  }
  const NodePtr parent = walk_parent(root_, n.segments);
  const std::string& name = n.segments.back();
  const NodePtr existing = parent->find(name);
  if (existing && existing->is_dir()) fail(Errno::kEISDIR, "Is a directory: " + std::string(path));
  const std::uint64_t previous = existing ? existing->data.size() : 0;
  const WorkspaceStats used = workspace_tree::count(*root_);
  if (used.bytes - previous + bytes.size() > kMaxTotalBytes) {
    fail_too_many_bytes();
  }
  if (!existing && used.entries >= kMaxWorkspaceEntries) {
    fail_too_many_entries();
  }
  parent->put(name,
              make_file(std::vector<std::uint8_t>(bytes.begin(), bytes.end()), clock_.now_ms()));
}

void Workspace::mkdir(std::string_view path, bool recursive, std::string_view cwd) {
  check_enabled(disabled_);
  const NormalizedPath n = normalize_workspace_path(path, cwd);
  if (n.segments.empty()) return;
  if (recursive) {
    // Counted once: each level created adds one entry.
    std::optional<std::uint64_t> entries;
    NodePtr dir = root_;
    for (const auto& seg : n.segments) {
      NodePtr child = dir->find(seg);
      if (!child) {
        if (!entries) entries = workspace_tree::count(*root_).entries;
        if (*entries >= kMaxWorkspaceEntries) {
          fail_too_many_entries();
        }
        ++*entries;
        child = make_dir();
        dir->put(seg, child);
      } else if (!child->is_dir()) {
        fail(Errno::kENOTDIR, "Not a directory");
      }
      dir = std::move(child);
    }
    return;
  }
  const NodePtr parent = walk_parent(root_, n.segments);
  const std::string& name = n.segments.back();
  if (parent->find(name)) fail(Errno::kEEXIST, "Already exists: " + std::string(path));
  if (workspace_tree::count(*root_).entries >= kMaxWorkspaceEntries) {
    fail_too_many_entries();
  }
  parent->put(name, make_dir());
}

std::vector<ListEntry> Workspace::list(std::string_view path, bool recursive,
                                       std::string_view cwd) const {
  check_enabled(disabled_);
  const NormalizedPath n = normalize_workspace_path(path, cwd);
  const NodePtr node = lookup(root_, n.segments);
  if (!node) fail(Errno::kENOENT, "No such directory: " + std::string(path));
  if (!node->is_dir()) fail(Errno::kENOTDIR, "Not a directory: " + std::string(path));
  std::vector<ListEntry> entries;
  walk_preorder(*node, n.absolute, [&](const std::string& p, const WorkspaceNode& child) {
    ListEntry e;
    e.path = p;
    e.type = child.type;
    if (!child.is_dir()) {
      e.size = child.data.size();
      e.updated_at = child.updated_at;
    }
    entries.push_back(std::move(e));
    return recursive;
  });
  return entries;
}

void Workspace::remove(std::string_view path, bool recursive, bool force, std::string_view cwd) {
  check_enabled(disabled_);
  const NormalizedPath n = normalize_workspace_path(path, cwd);
  if (n.segments.empty()) fail(Errno::kEACCES, "Cannot delete the /workspace root");
  NodePtr parent;
  try {
    parent = walk_parent(root_, n.segments);
  } catch (const WorkspaceError& e) {
    if (force && e.code() == Errno::kENOENT) return;
    throw;
  }
  const std::string& name = n.segments.back();
  const NodePtr node = parent->find(name);
  if (!node) {
    if (force) return;
    fail(Errno::kENOENT, "No such file or directory: " + std::string(path));
  }
  if (node->is_dir() && !recursive) {
    fail(Errno::kEISDIR, "Cannot delete directory with deleteFile() at '" + std::string(path) +
                             "'. Pass { recursive: true } to delete a directory.");
  }
  parent->erase(name);
}

void Workspace::rename(std::string_view from, std::string_view to, std::string_view cwd) {
  check_enabled(disabled_);
  const NormalizedPath src = normalize_workspace_path(from, cwd);
  const NormalizedPath dst = normalize_workspace_path(to, cwd);
  if (src.segments.empty()) fail(Errno::kEACCES, "Cannot rename the /workspace root");
  if (dst.segments.empty()) fail(Errno::kEACCES, "Cannot rename onto the /workspace root");
  const NodePtr src_parent = walk_parent(root_, src.segments);
  const std::string& src_name = src.segments.back();
  const NodePtr node = src_parent->find(src_name);
  if (!node) fail(Errno::kENOENT, "No such file or directory: " + std::string(from));
  const NodePtr dst_parent = walk_parent(root_, dst.segments);
  // Deviation: upstream detaches a directory moved into its own subtree (the data vanishes and
  // the nodes form a cycle); we refuse, as POSIX rename(2) does.
  if (dst.segments.size() > src.segments.size() &&
      std::equal(src.segments.begin(), src.segments.end(), dst.segments.begin())) {
    fail(Errno::kEINVAL, "Cannot move a directory into itself: " + std::string(to));
  }
  // The moved subtree must stay within the path limits at its new place.
  const workspace_tree::Position extent = workspace_tree::subtree_extent(*node);
  const workspace_tree::Position at{dst.segments.size(),
                                    dst.absolute.size() - kWorkspaceRoot.size()};
  if (!workspace_tree::fits_path_limits(at, extent)) {
    fail(Errno::kENAMETOOLONG, "Path too long or too deep after the move: " + std::string(to));
  }
  const std::string& dst_name = dst.segments.back();
  if (const NodePtr existing = dst_parent->find(dst_name)) {
    const bool src_is_dir = node->is_dir();
    const bool dst_is_dir = existing->is_dir();
    if (src_is_dir && !dst_is_dir) fail(Errno::kENOTDIR, "Not a directory: " + std::string(to));
    if (!src_is_dir && dst_is_dir) fail(Errno::kEISDIR, "Is a directory: " + std::string(to));
    if (dst_is_dir && !existing->children.empty()) {
      fail(Errno::kENOTEMPTY, "Directory not empty: " + std::string(to));
    }
  }
  src_parent->erase(src_name);
  dst_parent->put(dst_name, node);
}

bool Workspace::exists(std::string_view path, std::string_view cwd) const noexcept {
  if (disabled_) return false;
  try {
    const NormalizedPath n = normalize_workspace_path(path, cwd);
    return lookup(root_, n.segments) != nullptr;
  } catch (...) {
    return false;
  }
}

StatResult Workspace::stat(std::string_view path, std::string_view cwd) const {
  check_enabled(disabled_);
  const NormalizedPath n = normalize_workspace_path(path, cwd);
  const NodePtr node = lookup(root_, n.segments);
  if (!node) fail(Errno::kENOENT, "No such file or directory: " + std::string(path));
  StatResult out;
  out.type = node->type;
  if (!node->is_dir()) {
    out.size = node->data.size();
    out.updated_at = node->updated_at;
  }
  return out;
}

Manifest Workspace::manifest() const {
  Manifest out;
  walk_preorder(*root_, std::string(kWorkspaceRoot),
                [&](const std::string& path, const WorkspaceNode& node) {
                  if (node.is_dir()) {
                    out.dirs.push_back(path);
                  } else {
                    out.files[path] = node.data_hash();
                  }
                  return true;
                });
  sort_utf16(out.dirs);
  return out;
}

FileHashes Workspace::file_hashes() const { return manifest().files; }

Changes Workspace::changes(const FileHashes& since) const {
  Changes out;
  walk_preorder(*root_, std::string(kWorkspaceRoot),
                [&](const std::string& path, const WorkspaceNode& node) {
                  if (node.is_dir()) return true;
                  std::string hash = node.data_hash();
                  const auto it = since.find(path);
                  if (it == since.end()) {
                    out.created.push_back(path);
                  } else if (it->second != hash) {
                    out.updated.push_back(path);
                  }
                  out.snapshot[path] = std::move(hash);
                  return true;
                });
  for (const auto& [path, hash] : since) {
    if (!out.snapshot.contains(path)) out.deleted.push_back(path);
  }
  return out;
}

std::vector<WorkspaceRow> Workspace::serialize() const {
  std::vector<WorkspaceRow> rows;
  walk_preorder(*root_, std::string(kWorkspaceRoot),
                [&](const std::string& path, const WorkspaceNode& node) {
                  WorkspaceRow row;
                  row.path = path;
                  if (!node.is_dir()) {
                    row.data = node.data;
                    row.updated_at = node.updated_at;
                  }
                  rows.push_back(std::move(row));
                  return true;
                });
  return rows;
}

void Workspace::restore_from(const std::vector<WorkspaceRow>& rows) {
  const NodePtr fresh = make_dir();
  // The limits of every way in (docs/protocol.md#sync-order, Y6): rows past them are skipped,
  // so a corrupt or hostile store cannot make a tree larger than a caller could have written.
  WorkspaceStats used;
  for (const auto& row : rows) {
    if (used.entries >= kMaxWorkspaceEntries) break;
    if (row.data &&
        (row.data->size() > kMaxFileBytes || used.bytes + row.data->size() > kMaxTotalBytes)) {
      continue;
    }
    // Rows come from serialize(), which never produces what is skipped here; a corrupt row is
    // skipped rather than turned into an unreachable node or a tree past the path limits.
    if (row.path.size() > kMaxPathBytes || row.path.find('\0') != std::string::npos) continue;
    std::vector<std::string> rel;
    std::size_t start = 0;
    bool bad_segment = false;
    while (start <= row.path.size() && !bad_segment) {
      std::size_t end = row.path.find('/', start);
      if (end == std::string::npos) end = row.path.size();
      std::string seg = row.path.substr(start, end - start);
      start = end + 1;
      if (seg.empty()) continue;
      if (seg == "." || seg == ".." || seg.size() > kMaxPathSegmentBytes) bad_segment = true;
      rel.push_back(std::move(seg));
    }
    if (!rel.empty() && rel.front() == std::string_view("workspace")) rel.erase(rel.begin());
    if (rel.empty() || bad_segment || rel.size() > kMaxPathDepth) continue;
    // A row that needs more entries than are left is skipped whole.
    if (used.entries + new_entries(fresh, rel) > kMaxWorkspaceEntries) continue;
    // Deviation: upstream assumes parents are directories; a file in the way is replaced.
    std::uint64_t created = 0;
    const NodePtr dir = ensure_dir_path(fresh, rel, rel.size() - 1, &created);
    used.entries += created;
    const std::string& name = rel.back();
    const NodePtr existing = dir->find(name);
    if (!row.data) {
      if (!existing) {
        dir->put(name, make_dir());
        ++used.entries;
      }
      continue;
    }
    if (!existing) ++used.entries;
    if (existing && !existing->is_dir()) used.bytes -= existing->data.size();
    used.bytes += row.data->size();
    dir->put(name, make_file(*row.data, row.updated_at));
  }
  root_->children = std::move(fresh->children);
}

WorkspaceStats Workspace::stats() const { return workspace_tree::count(*root_); }

std::vector<std::string> Workspace::apply_sync(const SyncRequest& request) {
  // The limits, checked where they can be before anything changes: no file over kMaxFileBytes,
  // no more files than entries, no more bytes than the total.
  if (request.files.size() > kMaxWorkspaceEntries) fail_too_many_entries();
  std::uint64_t pushed_bytes = 0;
  for (const auto& file : request.files) {
    if (file.data.size() > kMaxFileBytes) {
      boost::json::object details;
      details["maxSize"] = kMaxFileBytes;
      details["actualSize"] = file.data.size();
      throw WorkspaceError(Errno::kEFBIG,
                           "File exceeds " + std::to_string(kMaxFileBytes) + " bytes: " + file.path,
                           std::move(details));
    }
    pushed_bytes += file.data.size();
  }
  if (pushed_bytes > kMaxTotalBytes) fail_too_many_bytes();
  std::uint64_t created = 0;
  // 1. Directories (replacing non-directories in the way).
  for (const auto& dir : request.dirs) {
    const NormalizedPath n = normalize_workspace_path(dir, kWorkspaceRoot);
    ensure_dir_path(root_, n.segments, n.segments.size(), &created);
    check_sync_growth(created);
  }
  // 2. Files, creating parents and keeping the given updatedAt. A root path is ignored.
  for (const auto& file : request.files) {
    const NormalizedPath n = normalize_workspace_path(file.path, kWorkspaceRoot);
    if (n.segments.empty()) continue;
    const NodePtr parent = ensure_dir_path(root_, n.segments, n.segments.size() - 1, &created);
    if (!parent->find(n.segments.back())) ++created;
    check_sync_growth(created);
    parent->put(n.segments.back(), make_file(file.data, file.updated_at));
  }
  // 3. File deletions. Manifest keys are compared as given, as upstream does.
  if (request.manifest) {
    std::vector<std::string> doomed;
    walk_preorder(*root_, std::string(kWorkspaceRoot),
                  [&](const std::string& path, const WorkspaceNode& node) {
                    if (!node.is_dir() && !request.manifest->contains(path)) {
                      doomed.push_back(path);
                    }
                    return true;
                  });
    for (const auto& path : doomed) remove_path(root_, path);
  } else if (request.deleted) {
    for (const auto& path : *request.deleted) remove_path(root_, path);
  }
  // 4. Directories not named in `dirs` (as given), deepest first; ties keep walk order.
  const std::unordered_set<std::string> keep(request.dirs.begin(), request.dirs.end());
  std::vector<std::string> doomed_dirs;
  walk_preorder(*root_, std::string(kWorkspaceRoot),
                [&](const std::string& path, const WorkspaceNode& node) {
                  if (node.is_dir() && !keep.contains(path)) doomed_dirs.push_back(path);
                  return true;
                });
  const auto depth = [](const std::string& p) { return std::count(p.begin(), p.end(), '/'); };
  std::stable_sort(doomed_dirs.begin(), doomed_dirs.end(),
                   [&](const std::string& a, const std::string& b) { return depth(a) > depth(b); });
  for (const auto& path : doomed_dirs) remove_path(root_, path);
  // The result is within the limits, or the sync fails (the caller drops what it left).
  const WorkspaceStats after = workspace_tree::count(*root_);
  if (after.entries > kMaxWorkspaceEntries) fail_too_many_entries();
  if (after.bytes > kMaxTotalBytes) fail_too_many_bytes();
  // 5. Missing.
  std::vector<std::string> missing;
  if (!request.manifest) return missing;
  const FileHashes current = file_hashes();
  for (const auto& [path, hash] : *request.manifest) {
    const auto it = current.find(path);
    if (it == current.end() || it->second != hash) missing.push_back(path);
  }
  return missing;
}

}  // namespace sandbox

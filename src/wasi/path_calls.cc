// The path_* calls and the write/open policy of docs/guest-abi.md#wasi-write-policy.
#include "wasi/abi.h"
#include "wasi/host_state.h"

namespace sandbox::wasi {

FdEntry* HostState::directory_fd(std::uint32_t fd, std::uint32_t* err) {
  FdEntry* e = fds.get(fd);
  if (e == nullptr) {
    *err = kEBadf;
    return nullptr;
  }
  if (!e->is_dir()) {
    *err = kENotdir;
    return nullptr;
  }
  *err = kSuccess;
  return e;
}

std::uint32_t HostState::mutation_policy(const FdEntry& dir) const {
  if (dir.mount != Mount::kWorkspace) return kEPerm;
  if (workspace_disabled()) return kEAcces;
  return kSuccess;
}

std::uint32_t HostState::read_path(std::uint32_t ptr, std::uint32_t len, GuestPath& out) const {
  if (len > kMaxPathBytes) return kENametoolong;
  if (!memory.contains(ptr, len)) return kEFault;
  return parse_guest_path(memory.text(ptr, len), out);
}

std::uint32_t HostState::find_for_change(std::uint32_t fd, std::uint32_t path_ptr,
                                         std::uint32_t len, GuestPath& path, Lookup& found) {
  std::uint32_t err;
  FdEntry* dir = directory_fd(fd, &err);
  if (dir == nullptr) return err;
  if ((err = mutation_policy(*dir))) return err;
  if ((err = read_path(path_ptr, len, path))) return err;
  return lookup(dir->node, path, found);
}

std::uint32_t HostState::path_create_directory(std::uint32_t fd, std::uint32_t path,
                                               std::uint32_t len) {
  GuestPath p;
  Lookup found;
  if (const std::uint32_t err = find_for_change(fd, path, len, p, found)) return err;
  if (found.node) return kEExist;
  if (const std::uint32_t err = check_new_entry(*found.parent, found.name)) return err;
  found.parent->put(found.name, std::make_shared<WorkspaceNode>(WorkspaceNode::Type::kDirectory));
  return kSuccess;
}

std::uint32_t HostState::path_unlink_file(std::uint32_t fd, std::uint32_t path, std::uint32_t len) {
  GuestPath p;
  Lookup found;
  if (const std::uint32_t err = find_for_change(fd, path, len, p, found)) return err;
  if (!found.node) return kENoent;
  if (found.node->is_dir()) return kEIsdir;
  if (p.trailing_slash) return kENotdir;
  found.parent->erase(found.name);
  return kSuccess;
}

std::uint32_t HostState::path_remove_directory(std::uint32_t fd, std::uint32_t path,
                                               std::uint32_t len) {
  GuestPath p;
  Lookup found;
  if (const std::uint32_t err = find_for_change(fd, path, len, p, found)) return err;
  if (!found.parent) return kEBusy;  // the descriptor's own directory
  if (!found.node) return kENoent;
  if (!found.node->is_dir()) return kENotdir;
  if (!found.node->children.empty()) return kENotempty;
  found.parent->erase(found.name);
  return kSuccess;
}

std::uint32_t HostState::path_rename(std::uint32_t fd, std::uint32_t old_path,
                                     std::uint32_t old_len, std::uint32_t new_fd,
                                     std::uint32_t new_path, std::uint32_t new_len) {
  std::uint32_t err;
  FdEntry* from_dir = directory_fd(fd, &err);
  if (from_dir == nullptr) return err;
  FdEntry* to_dir = directory_fd(new_fd, &err);
  if (to_dir == nullptr) return err;
  if ((err = mutation_policy(*from_dir))) return err;
  if ((err = mutation_policy(*to_dir))) return err;
  GuestPath from_p;
  GuestPath to_p;
  if ((err = read_path(old_path, old_len, from_p))) return err;
  if ((err = read_path(new_path, new_len, to_p))) return err;
  Lookup from;
  Lookup to;
  if ((err = lookup(from_dir->node, from_p, from))) return err;
  if ((err = lookup(to_dir->node, to_p, to))) return err;
  if (!from.parent || !to.parent) return kEBusy;
  if (!from.node) return kENoent;
  const bool from_is_dir = from.node->is_dir();
  if (!from_is_dir && (from_p.trailing_slash || to_p.trailing_slash)) return kENotdir;
  if (to.node == from.node) return kSuccess;
  if (to.node) {
    if (from_is_dir && !to.node->is_dir()) return kENotdir;
    if (!from_is_dir && to.node->is_dir()) return kEIsdir;
    if (to.node->is_dir() && !to.node->children.empty()) return kENotempty;
  }
  // A directory cannot move below itself.
  if (from_is_dir && workspace_tree::subtree_contains(*from.node, to.parent.get())) {
    return kEInval;
  }
  // Whatever moves into the tree must stay within the path limits there.
  if (const auto at = workspace_usage(to.parent.get()).located) {
    const workspace_tree::Position target{at->depth + 1, at->bytes + 1 + to.name.size()};
    if (!workspace_tree::fits_path_limits(target, workspace_tree::subtree_extent(*from.node))) {
      return kENametoolong;
    }
  }
  auto node = from.node;
  from.parent->erase(from.name);
  to.parent->put(to.name, std::move(node));
  return kSuccess;
}

std::uint32_t HostState::path_filestat_get(std::uint32_t fd, std::uint32_t /*flags*/,
                                           std::uint32_t path, std::uint32_t len,
                                           std::uint32_t out) {
  std::uint32_t err;
  FdEntry* dir = directory_fd(fd, &err);
  if (dir == nullptr) return err;
  // Not gated by the disabled flag (upstream): stat answers from whatever the mirror holds.
  GuestPath p;
  if ((err = read_path(path, len, p))) return err;
  Lookup found;
  if ((err = lookup(dir->node, p, found))) return err;
  if (!found.node) return kENoent;
  if (p.trailing_slash && !found.node->is_dir()) return kENotdir;
  return write_filestat(out, dir->mount, found.node.get(),
                        found.node->is_dir() ? kFiletypeDirectory : kFiletypeRegularFile);
}

std::uint32_t HostState::path_readlink(std::uint32_t fd, std::uint32_t path, std::uint32_t len,
                                       std::uint32_t buf, std::uint32_t buf_len,
                                       std::uint32_t used_out) {
  std::uint32_t err;
  FdEntry* dir = directory_fd(fd, &err);
  if (dir == nullptr) return err;
  if (!memory.contains(buf, buf_len) || !memory.contains(used_out, 4)) return kEFault;
  GuestPath p;
  if ((err = read_path(path, len, p))) return err;
  Lookup found;
  if ((err = lookup(dir->node, p, found))) return err;
  // There are no symbolic links.
  return found.node ? kEInval : kENoent;
}

std::uint32_t HostState::path_open(std::uint32_t fd, std::uint32_t /*dirflags*/, std::uint32_t path,
                                   std::uint32_t len, std::uint32_t oflags,
                                   std::uint64_t rights_base, std::uint64_t rights_inheriting,
                                   std::uint32_t fdflags, std::uint32_t fd_out) {
  std::uint32_t err;
  FdEntry* dir = directory_fd(fd, &err);
  if (dir == nullptr) return err;
  const bool creat = oflags & kOflagCreat;
  const bool trunc = oflags & kOflagTrunc;
  const Mount mount = dir->mount;
  const auto dir_node = dir->node;  // `dir` may move when the table grows

  GuestPath p;
  Lookup found;
  if (mount == Mount::kWorkspace) {
    // Every open is refused while the File API is disabled, reads included.
    if (workspace_disabled()) return kEAcces;
    if ((err = read_path(path, len, p))) return err;
    if ((err = lookup(dir_node, p, found))) return err;
  } else {
    const std::uint32_t parse_err = read_path(path, len, p);
    const std::uint32_t lookup_err = parse_err ? parse_err : lookup(dir_node, p, found);
    // Creating or truncating is refused outside /workspace; /dev/null, which exists and has
    // nothing to truncate, is the one exception (open(..., "w") on it is common).
    const bool dev_null =
        mount == Mount::kDev && lookup_err == kSuccess && found.node && !found.node->is_dir();
    if ((creat || trunc) && !dev_null) return kEPerm;
    if (lookup_err) return lookup_err;
  }
  if (!memory.contains(fd_out, 4)) return kEFault;
  if (fds.open_guest_fds() >= kMaxOpenGuestFds) return kEMfile;

  const bool wants_write = rights_base & kRightFdWrite;
  std::shared_ptr<WorkspaceNode> node = found.node;
  if (!node) {
    if (!creat) return kENoent;
    if (oflags & kOflagDirectory || p.trailing_slash) return kEIsdir;
    if ((err = check_new_entry(*found.parent, found.name))) return err;
    node = std::make_shared<WorkspaceNode>(WorkspaceNode::Type::kFile);
    node->updated_at = now_ms();
    found.parent->put(found.name, node);
  } else {
    if (creat && (oflags & kOflagExcl)) return kEExist;
    if (!node->is_dir() && (oflags & kOflagDirectory || p.trailing_slash)) return kENotdir;
    if (node->is_dir() && (wants_write || trunc)) return kEIsdir;
    if (!node->is_dir() && mount == Mount::kStdlib && (wants_write || trunc)) return kEPerm;
    if (!node->is_dir() && trunc && mount == Mount::kWorkspace && !node->data.empty()) {
      node->data.clear();
      node->data.shrink_to_fit();
      node->data_changed();
      node->updated_at = now_ms();
    }
  }

  FdEntry entry;
  entry.mount = mount;
  entry.node = node;
  if (node->is_dir()) {
    entry.kind = FdEntry::Kind::kDirectory;
    entry.rights_base = rights_base & kRightsDirectory;
    entry.rights_inheriting = rights_inheriting & kRightsAll;
  } else {
    entry.kind = FdEntry::Kind::kFile;
    std::uint64_t allowed = kRightsFile;
    if (mount == Mount::kStdlib) allowed &= ~kRightFdWrite;
    entry.rights_base = rights_base & allowed;
    entry.rights_inheriting = 0;
    entry.fdflags = static_cast<std::uint16_t>(fdflags & kFdflagsAll);
  }
  const auto new_fd = fds.open(std::move(entry), kMaxOpenGuestFds);
  if (!new_fd) return kEMfile;
  memory.store_u32(fd_out, *new_fd);
  return kSuccess;
}

}  // namespace sandbox::wasi

// The fd_* calls: descriptors, reading, writing, seeking, directory listing.
#include <limits>
#include <unordered_set>

#include "wasi/abi.h"
#include "wasi/host_state.h"
#include "wasm/host_call.h"

namespace sandbox::wasi {
namespace {

struct Iovec {
  std::uint32_t ptr;
  std::uint32_t len;
};

// Loads and bounds-checks an iovec array and every buffer it names.
std::uint32_t load_iovecs(const GuestMemory& memory, std::uint32_t iovs, std::uint32_t count,
                          std::vector<Iovec>& out, std::uint64_t& total) {
  total = 0;
  if (count > kMaxIovecs) return kEInval;
  if (!memory.contains(iovs, std::uint64_t{kIovecSize} * count)) return kEFault;
  out.resize(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    memory.load_u32(iovs + i * kIovecSize, out[i].ptr);
    memory.load_u32(iovs + i * kIovecSize + 4, out[i].len);
    if (!memory.contains(out[i].ptr, out[i].len)) return kEFault;
    total += out[i].len;
  }
  return kSuccess;
}

bool is_dev_null(const FdEntry& e) {
  return e.kind == FdEntry::Kind::kFile && e.mount == Mount::kDev;
}

std::uint8_t filetype_of(const FdEntry& e) {
  switch (e.kind) {
    case FdEntry::Kind::kStdin:
      return kFiletypeRegularFile;
    // Captured output is a pipe (wasmtime reports pipes as "unknown"), so guest stdio buffers
    // it fully instead of line by line.
    case FdEntry::Kind::kStdout:
    case FdEntry::Kind::kStderr:
      return kFiletypeUnknown;
    case FdEntry::Kind::kDirectory:
      return kFiletypeDirectory;
    case FdEntry::Kind::kFile:
      return kFiletypeRegularFile;
  }
  return kFiletypeUnknown;
}

}  // namespace

std::uint32_t HostState::copy_out(const std::vector<std::uint8_t>& data, std::uint64_t offset,
                                  std::uint32_t iovs, std::uint32_t iovs_len,
                                  std::uint32_t& total) {
  std::vector<Iovec> vecs;
  std::uint64_t requested = 0;
  if (const auto err = load_iovecs(memory, iovs, iovs_len, vecs, requested)) return err;
  total = 0;
  for (const auto& v : vecs) {
    if (offset >= data.size()) break;
    const std::uint64_t n = std::min<std::uint64_t>(v.len, data.size() - offset);
    memory.write(v.ptr, {data.data() + offset, static_cast<std::size_t>(n)});
    offset += n;
    total += static_cast<std::uint32_t>(n);
  }
  return kSuccess;
}

std::uint32_t HostState::write_filestat(std::uint32_t out, Mount mount, const WorkspaceNode* node,
                                        std::uint8_t filetype) const {
  if (!memory.contains(out, kFilestatSize)) return kEFault;
  std::uint64_t size = 0;
  std::uint64_t mtime = 0;
  if (node != nullptr && !node->is_dir()) {
    size = node->data.size();
    if (mount == Mount::kWorkspace && node->updated_at > 0) {
      mtime = static_cast<std::uint64_t>(node->updated_at) * 1'000'000ull;
    }
  }
  memory.fill(out, kFilestatSize, 0);
  memory.store_u64(out, static_cast<std::uint64_t>(mount) + 1);  // dev
  memory.store_u64(out + 8, node != nullptr ? inode(node) : 1);
  memory.store_u8(out + 16, filetype);
  memory.store_u64(out + 24, 1);  // nlink
  memory.store_u64(out + 32, size);
  memory.store_u64(out + 40, mtime);  // atim
  memory.store_u64(out + 48, mtime);  // mtim
  memory.store_u64(out + 56, mtime);  // ctim
  return kSuccess;
}

std::uint32_t HostState::fd_advise(std::uint32_t fd) {
  return fds.get(fd) != nullptr ? kSuccess : kEBadf;
}

std::uint32_t HostState::fd_close(std::uint32_t fd) { return fds.close(fd) ? kSuccess : kEBadf; }

std::uint32_t HostState::fd_sync(std::uint32_t fd) {
  return fds.get(fd) != nullptr ? kSuccess : kEBadf;
}

std::uint32_t HostState::fd_fdstat_get(std::uint32_t fd, std::uint32_t out) {
  const FdEntry* e = fds.get(fd);
  if (e == nullptr) return kEBadf;
  if (!memory.contains(out, kFdstatSize)) return kEFault;
  memory.fill(out, kFdstatSize, 0);
  memory.store_u8(out, filetype_of(*e));
  memory.store_u16(out + 2, e->fdflags);
  memory.store_u64(out + 8, e->rights_base);
  memory.store_u64(out + 16, e->rights_inheriting);
  return kSuccess;
}

std::uint32_t HostState::fd_fdstat_set_flags(std::uint32_t fd, std::uint32_t flags) {
  FdEntry* e = fds.get(fd);
  if (e == nullptr) return kEBadf;
  if (flags & ~std::uint32_t{kFdflagsAll}) return kEInval;
  if (e->kind == FdEntry::Kind::kFile) e->fdflags = static_cast<std::uint16_t>(flags);
  return kSuccess;
}

std::uint32_t HostState::fd_fdstat_set_rights(std::uint32_t fd, std::uint64_t base,
                                              std::uint64_t inheriting) {
  FdEntry* e = fds.get(fd);
  if (e == nullptr) return kEBadf;
  // Rights can only be dropped.
  if ((base & ~e->rights_base) != 0 || (inheriting & ~e->rights_inheriting) != 0) {
    return kENotcapable;
  }
  // Fixed descriptors keep their rights: their state must be the same after a restore.
  if (fd < fds.fd_base()) return kSuccess;
  e->rights_base = base;
  e->rights_inheriting = inheriting;
  return kSuccess;
}

std::uint32_t HostState::fd_filestat_get(std::uint32_t fd, std::uint32_t out) {
  const FdEntry* e = fds.get(fd);
  if (e == nullptr) return kEBadf;
  return write_filestat(out, e->mount, e->node.get(), filetype_of(*e));
}

std::uint32_t HostState::fd_prestat_get(std::uint32_t fd, std::uint32_t out) {
  const FdEntry* e = fds.get(fd);
  if (e == nullptr || !e->is_preopen()) return kEBadf;
  if (!memory.contains(out, kPrestatSize)) return kEFault;
  memory.fill(out, kPrestatSize, 0);  // tag 0: a directory
  memory.store_u32(out + 4, static_cast<std::uint32_t>(e->preopen_name.size()));
  return kSuccess;
}

std::uint32_t HostState::fd_prestat_dir_name(std::uint32_t fd, std::uint32_t buf,
                                             std::uint32_t len) {
  const FdEntry* e = fds.get(fd);
  if (e == nullptr || !e->is_preopen()) return kEBadf;
  const std::size_t n = std::min<std::size_t>(len, e->preopen_name.size());
  if (!memory.write(buf, {reinterpret_cast<const std::uint8_t*>(e->preopen_name.data()), n})) {
    return kEFault;
  }
  return kSuccess;
}

std::uint32_t HostState::fd_read(std::uint32_t fd, std::uint32_t iovs, std::uint32_t iovs_len,
                                 std::uint32_t nread_out) {
  FdEntry* e = fds.get(fd);
  if (e == nullptr) return kEBadf;
  if (!memory.contains(nread_out, 4)) return kEFault;
  std::uint32_t total = 0;
  switch (e->kind) {
    case FdEntry::Kind::kStdout:
    case FdEntry::Kind::kStderr:
      return kEBadf;
    case FdEntry::Kind::kDirectory:
      return kEIsdir;
    case FdEntry::Kind::kStdin: {
      std::vector<Iovec> vecs;
      std::uint64_t requested = 0;
      if (const auto err = load_iovecs(memory, iovs, iovs_len, vecs, requested)) return err;
      break;  // always at end of file
    }
    case FdEntry::Kind::kFile: {
      if ((e->rights_base & kRightFdRead) == 0) return kEBadf;
      if (is_dev_null(*e)) {
        std::vector<Iovec> vecs;
        std::uint64_t requested = 0;
        if (const auto err = load_iovecs(memory, iovs, iovs_len, vecs, requested)) return err;
        break;
      }
      if (const auto err = copy_out(e->node->data, e->position, iovs, iovs_len, total)) return err;
      e->position += total;
      break;
    }
  }
  memory.store_u32(nread_out, total);
  return kSuccess;
}

std::uint32_t HostState::fd_pread(std::uint32_t fd, std::uint32_t iovs, std::uint32_t iovs_len,
                                  std::uint64_t offset, std::uint32_t nread_out) {
  FdEntry* e = fds.get(fd);
  if (e == nullptr) return kEBadf;
  if (!memory.contains(nread_out, 4)) return kEFault;
  if (e->kind == FdEntry::Kind::kStdout || e->kind == FdEntry::Kind::kStderr) return kESpipe;
  if (e->kind == FdEntry::Kind::kDirectory) return kEIsdir;
  std::uint32_t total = 0;
  if (e->kind == FdEntry::Kind::kFile && !is_dev_null(*e)) {
    if ((e->rights_base & kRightFdRead) == 0) return kEBadf;
    if (const auto err = copy_out(e->node->data, offset, iovs, iovs_len, total)) return err;
  } else {
    std::vector<Iovec> vecs;
    std::uint64_t requested = 0;
    if (const auto err = load_iovecs(memory, iovs, iovs_len, vecs, requested)) return err;
  }
  memory.store_u32(nread_out, total);
  return kSuccess;
}

std::uint32_t HostState::fd_write(std::uint32_t fd, std::uint32_t iovs, std::uint32_t iovs_len,
                                  std::uint32_t nwritten_out) {
  FdEntry* e = fds.get(fd);
  if (e == nullptr) return kEBadf;
  if (!memory.contains(nwritten_out, 4)) return kEFault;
  std::vector<Iovec> vecs;
  std::uint64_t total = 0;
  if (const auto err = load_iovecs(memory, iovs, iovs_len, vecs, total)) return err;

  switch (e->kind) {
    case FdEntry::Kind::kStdin:
      return kEBadf;
    case FdEntry::Kind::kDirectory:
      return kEIsdir;
    case FdEntry::Kind::kStdout:
    case FdEntry::Kind::kStderr: {
      const OutputStream stream =
          e->kind == FdEntry::Kind::kStdout ? OutputStream::kStdout : OutputStream::kStderr;
      // Each iovec is one piece (docs/guest-abi.md#output-capture).
      for (const auto& v : vecs) {
        if (!output.append(stream, memory.text(v.ptr, v.len))) {
          request_trap(SANDBOX_TRAP_OUTPUT_LIMIT, "Output limit exceeded");
          return kSuccess;
        }
      }
      if (total > std::numeric_limits<std::uint32_t>::max()) return kEOverflow;
      memory.store_u32(nwritten_out, static_cast<std::uint32_t>(total));
      return kSuccess;
    }
    case FdEntry::Kind::kFile:
      break;
  }

  if ((e->rights_base & kRightFdWrite) == 0) return kEBadf;
  if (is_dev_null(*e)) {
    if (total > std::numeric_limits<std::uint32_t>::max()) return kEOverflow;
    memory.store_u32(nwritten_out, static_cast<std::uint32_t>(total));
    return kSuccess;
  }
  if (e->mount != Mount::kWorkspace) return kEBadf;  // read-only trees

  WorkspaceNode& file = *e->node;
  const std::uint64_t old_size = file.data.size();
  const std::uint64_t start = (e->fdflags & kFdflagAppend) ? old_size : e->position;
  const std::uint64_t end = start + total;
  if (end > old_size) {
    if (const auto err = check_file_growth(old_size, end)) return err;
    file.data.resize(static_cast<std::size_t>(end), 0);
  }
  std::uint64_t at = start;
  for (const auto& v : vecs) {
    const auto src = memory.bytes(v.ptr, v.len);
    std::copy(src.begin(), src.end(), file.data.begin() + static_cast<std::ptrdiff_t>(at));
    at += v.len;
  }
  if (total > 0) {
    file.updated_at = now_ms();
    file.data_changed();
  }
  e->position = end;
  memory.store_u32(nwritten_out, static_cast<std::uint32_t>(total));
  return kSuccess;
}

HostState::WorkspaceUsage HostState::workspace_usage(const WorkspaceNode* locate) const {
  WorkspaceUsage out;
  if (options.workspace == nullptr) return out;
  const WorkspaceNode& root = *options.workspace->root();
  if (locate == &root) out.located = workspace_tree::Position{};
  // What descriptors hold; whatever the tree walk does not meet is detached from the tree.
  std::unordered_set<const WorkspaceNode*> held;
  fds.for_each_open([&](const FdEntry& e) {
    if (e.mount == Mount::kWorkspace && e.node && e.node.get() != &root) held.insert(e.node.get());
  });
  workspace_tree::walk_nodes(root, [&](const WorkspaceNode& node, workspace_tree::Position at) {
    ++out.stats.entries;
    if (!node.is_dir()) out.stats.bytes += node.data.size();
    if (&node == locate) out.located = at;
    if (!held.empty()) held.erase(&node);
    return true;
  });
  // Detached subtrees may nest (descriptors on a removed directory and on something below
  // it): with more than one, each node counts once.
  const bool dedupe = held.size() > 1;
  std::unordered_set<const WorkspaceNode*> seen;
  const auto add = [&](const WorkspaceNode& node) {
    if (dedupe && !seen.insert(&node).second) return false;
    ++out.stats.entries;
    if (!node.is_dir()) out.stats.bytes += node.data.size();
    return true;
  };
  for (const WorkspaceNode* top : held) {
    if (!add(*top)) continue;
    workspace_tree::walk_nodes(
        *top, [&](const WorkspaceNode& node, workspace_tree::Position) { return add(node); });
  }
  return out;
}

std::uint32_t HostState::check_file_growth(std::uint64_t old_size, std::uint64_t new_size) const {
  if (new_size > kMaxFileBytes) return kEFbig;
  if (options.workspace != nullptr) {
    const std::uint64_t bytes = workspace_usage(nullptr).stats.bytes;
    const std::uint64_t base = bytes >= old_size ? bytes - old_size : 0;
    if (base + new_size > kMaxTotalBytes) return kENospc;
  }
  return kSuccess;
}

std::uint32_t HostState::check_new_entry(const WorkspaceNode& parent, std::string_view name) const {
  if (options.workspace == nullptr) return kSuccess;
  const WorkspaceUsage usage = workspace_usage(&parent);
  if (usage.stats.entries >= kMaxWorkspaceEntries) return kENospc;
  // A parent outside the tree has no path; its subtree is checked if it is ever moved back in.
  if (usage.located && !workspace_tree::fits_path_limits(*usage.located, {1, 1 + name.size()})) {
    return kENametoolong;
  }
  return kSuccess;
}

std::uint32_t HostState::fd_seek(std::uint32_t fd, std::uint64_t offset, std::uint32_t whence,
                                 std::uint32_t new_offset_out) {
  FdEntry* e = fds.get(fd);
  if (e == nullptr) return kEBadf;
  if (e->kind == FdEntry::Kind::kStdout || e->kind == FdEntry::Kind::kStderr) return kESpipe;
  if (e->kind == FdEntry::Kind::kDirectory) return kEBadf;
  if (!memory.contains(new_offset_out, 8)) return kEFault;
  const bool is_file = e->kind == FdEntry::Kind::kFile && !is_dev_null(*e);
  const std::int64_t size = is_file ? static_cast<std::int64_t>(e->node->data.size()) : 0;
  const std::int64_t current = is_file ? static_cast<std::int64_t>(e->position) : 0;
  std::int64_t base;
  switch (whence) {
    case kWhenceSet:
      base = 0;
      break;
    case kWhenceCur:
      base = current;
      break;
    case kWhenceEnd:
      base = size;
      break;
    default:
      return kEInval;
  }
  const std::int64_t delta = static_cast<std::int64_t>(offset);
  std::int64_t target;
  if (__builtin_add_overflow(base, delta, &target) || target < 0) return kEInval;
  // stdin and /dev/null stay at 0: fixed descriptors keep no position a snapshot would lose.
  if (is_file) e->position = static_cast<std::uint64_t>(target);
  memory.store_u64(new_offset_out, is_file ? static_cast<std::uint64_t>(target) : 0);
  return kSuccess;
}

std::uint32_t HostState::fd_tell(std::uint32_t fd, std::uint32_t out) {
  return fd_seek(fd, 0, kWhenceCur, out);
}

std::uint32_t HostState::fd_readdir(std::uint32_t fd, std::uint32_t buf, std::uint32_t len,
                                    std::uint64_t cookie, std::uint32_t used_out) {
  const FdEntry* e = fds.get(fd);
  if (e == nullptr) return kEBadf;
  if (!e->is_dir()) return kENotdir;
  if (e->mount == Mount::kWorkspace && workspace_disabled()) return kEAcces;
  if (!memory.contains(buf, len) || !memory.contains(used_out, 4)) return kEFault;

  const WorkspaceNode& dir = *e->node;
  const std::uint64_t count = dir.children.size() + 2;
  std::vector<std::uint8_t> out;
  for (std::uint64_t i = cookie; i < count && out.size() < len; ++i) {
    std::string_view name;
    const WorkspaceNode* node;
    if (i == 0) {
      name = ".";
      node = &dir;
    } else if (i == 1) {
      name = "..";
      node = &dir;
    } else {
      name = dir.children[i - 2].first;
      node = dir.children[i - 2].second.get();
    }
    std::uint8_t header[kDirentSize] = {};
    const std::uint64_t next = i + 1;
    const std::uint64_t ino = inode(node);
    const auto namlen = static_cast<std::uint32_t>(name.size());
    std::memcpy(header, &next, 8);
    std::memcpy(header + 8, &ino, 8);
    std::memcpy(header + 16, &namlen, 4);
    header[20] = node->is_dir() ? kFiletypeDirectory : kFiletypeRegularFile;
    out.insert(out.end(), header, header + kDirentSize);
    out.insert(out.end(), name.begin(), name.end());
  }
  // A full buffer tells the guest to call again from the last cookie it saw.
  if (out.size() > len) out.resize(len);
  memory.write(buf, out);
  memory.store_u32(used_out, static_cast<std::uint32_t>(out.size()));
  return kSuccess;
}

std::uint32_t HostState::fd_renumber(std::uint32_t fd, std::uint32_t to) {
  return fds.renumber(fd, to);
}

}  // namespace sandbox::wasi

// HostState: everything behind one WasiHost, and the WASI calls themselves.
//
// Each call returns a WASI errno (or nothing, for the two that never return to the guest) and
// never throws past the import shim: the shims in imports.cc catch everything, and raise any
// trap a call requested (pending_trap) only after the call's C++ objects are destroyed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <sandbox/wasi.h>

#include "wasi/fd_table.h"
#include "wasi/guest_memory.h"
#include "wasi/output_capture.h"
#include "wasi/path_walk.h"
#include "workspace/tree_walk.h"

namespace sandbox::wasi {

class HostState {
 public:
  explicit HostState(WasiOptions options);

  // Process.
  std::uint32_t args_get(std::uint32_t argv, std::uint32_t buf);
  std::uint32_t args_sizes_get(std::uint32_t count_out, std::uint32_t size_out);
  std::uint32_t environ_get(std::uint32_t environ, std::uint32_t buf);
  std::uint32_t environ_sizes_get(std::uint32_t count_out, std::uint32_t size_out);
  std::uint32_t clock_res_get(std::uint32_t id, std::uint32_t out);
  std::uint32_t clock_time_get(std::uint32_t id, std::uint64_t precision, std::uint32_t out);
  std::uint32_t random_get(std::uint32_t buf, std::uint32_t len);
  void proc_exit(std::uint32_t code);
  std::uint32_t proc_raise(std::uint32_t signal);

  // Descriptors.
  std::uint32_t fd_advise(std::uint32_t fd);
  std::uint32_t fd_close(std::uint32_t fd);
  std::uint32_t fd_sync(std::uint32_t fd);
  std::uint32_t fd_fdstat_get(std::uint32_t fd, std::uint32_t out);
  std::uint32_t fd_fdstat_set_flags(std::uint32_t fd, std::uint32_t flags);
  std::uint32_t fd_fdstat_set_rights(std::uint32_t fd, std::uint64_t base,
                                     std::uint64_t inheriting);
  std::uint32_t fd_filestat_get(std::uint32_t fd, std::uint32_t out);
  std::uint32_t fd_pread(std::uint32_t fd, std::uint32_t iovs, std::uint32_t iovs_len,
                         std::uint64_t offset, std::uint32_t nread_out);
  std::uint32_t fd_prestat_get(std::uint32_t fd, std::uint32_t out);
  std::uint32_t fd_prestat_dir_name(std::uint32_t fd, std::uint32_t buf, std::uint32_t len);
  std::uint32_t fd_read(std::uint32_t fd, std::uint32_t iovs, std::uint32_t iovs_len,
                        std::uint32_t nread_out);
  std::uint32_t fd_readdir(std::uint32_t fd, std::uint32_t buf, std::uint32_t len,
                           std::uint64_t cookie, std::uint32_t used_out);
  std::uint32_t fd_renumber(std::uint32_t fd, std::uint32_t to);
  std::uint32_t fd_seek(std::uint32_t fd, std::uint64_t offset, std::uint32_t whence,
                        std::uint32_t new_offset_out);
  std::uint32_t fd_tell(std::uint32_t fd, std::uint32_t out);
  std::uint32_t fd_write(std::uint32_t fd, std::uint32_t iovs, std::uint32_t iovs_len,
                         std::uint32_t nwritten_out);

  // Paths.
  std::uint32_t path_create_directory(std::uint32_t fd, std::uint32_t path, std::uint32_t len);
  std::uint32_t path_filestat_get(std::uint32_t fd, std::uint32_t flags, std::uint32_t path,
                                  std::uint32_t len, std::uint32_t out);
  std::uint32_t path_open(std::uint32_t fd, std::uint32_t dirflags, std::uint32_t path,
                          std::uint32_t len, std::uint32_t oflags, std::uint64_t rights_base,
                          std::uint64_t rights_inheriting, std::uint32_t fdflags,
                          std::uint32_t fd_out);
  std::uint32_t path_readlink(std::uint32_t fd, std::uint32_t path, std::uint32_t len,
                              std::uint32_t buf, std::uint32_t buf_len, std::uint32_t used_out);
  std::uint32_t path_remove_directory(std::uint32_t fd, std::uint32_t path, std::uint32_t len);
  std::uint32_t path_rename(std::uint32_t fd, std::uint32_t old_path, std::uint32_t old_len,
                            std::uint32_t new_fd, std::uint32_t new_path, std::uint32_t new_len);
  std::uint32_t path_unlink_file(std::uint32_t fd, std::uint32_t path, std::uint32_t len);

  // Requests a trap; the import shim raises it once the call has returned.
  void request_trap(std::uint32_t code, std::string why = {});
  // WasiHost::remount_workspace.
  void remount_workspace(Workspace* workspace);

  WasiOptions options;
  GuestMemory memory;
  OutputCapture output;
  FdTable fds;
  std::vector<std::string> environ;  // "KEY=VALUE"
  std::optional<std::uint32_t> exit_code;
  std::uint32_t pending_trap = 0;
  std::string host_error;

 private:
  // A directory fd and the mount it belongs to; null with *err set when unusable.
  FdEntry* directory_fd(std::uint32_t fd, std::uint32_t* err);
  // The policy for mutating calls (docs/guest-abi.md#wasi-write-policy): 0 when allowed, else EPERM
  // / EACCES.
  std::uint32_t mutation_policy(const FdEntry& dir) const;
  bool workspace_disabled() const;
  std::uint32_t read_path(std::uint32_t ptr, std::uint32_t len, GuestPath& out) const;
  // The checks every call that changes one path makes first: `fd` is a directory the policy
  // lets the guest change, the path reads and walks (lookup()). 0 with `path` and `found` set,
  // else the errno.
  std::uint32_t find_for_change(std::uint32_t fd, std::uint32_t path_ptr, std::uint32_t len,
                                GuestPath& path, Lookup& found);
  std::uint32_t write_filestat(std::uint32_t out, Mount mount, const WorkspaceNode* node,
                               std::uint8_t filetype) const;
  std::uint64_t inode(const void* node) const;
  std::int64_t now_ms() const;
  // What the workspace limits count for this guest: the tree, plus every node the guest's
  // descriptors keep alive outside it (a file unlinked while open, a directory removed while a
  // descriptor points into it, nodes a rollback replaced). `locate`, when found in the tree,
  // gets its position below /workspace.
  struct WorkspaceUsage {
    WorkspaceStats stats;
    std::optional<workspace_tree::Position> located;
  };
  WorkspaceUsage workspace_usage(const WorkspaceNode* locate) const;
  // Checks the workspace limits for growing a file from `old_size` to `new_size`.
  std::uint32_t check_file_growth(std::uint64_t old_size, std::uint64_t new_size) const;
  // Checks the limits for creating `name` in `parent`: ENOSPC past the entry limit,
  // ENAMETOOLONG when the new path below /workspace would break the path limits.
  std::uint32_t check_new_entry(const WorkspaceNode& parent, std::string_view name) const;
  std::uint32_t copy_out(const std::vector<std::uint8_t>& data, std::uint64_t offset,
                         std::uint32_t iovs, std::uint32_t iovs_len, std::uint32_t& total);
  std::uint32_t write_strings(const std::vector<std::string>& strings, std::uint32_t ptrs,
                              std::uint32_t buf);
  std::uint32_t write_sizes(const std::vector<std::string>& strings, std::uint32_t count_out,
                            std::uint32_t size_out);

  std::shared_ptr<WorkspaceNode> dev_root_;
  std::uint64_t inode_key_ = 0;
  // WasiOptions::sequential_inodes: the number given to each node seen so far.
  mutable std::unordered_map<const void*, std::uint64_t> inode_numbers_;
  std::uint64_t random_state_ = 0;
};

}  // namespace sandbox::wasi

// FdTable: the guest's file descriptors. The invariants are listed in <sandbox/wasi.h>:
// fixed slots (stdio and preopens) below fd_base(), append-only numbering above it, and nothing
// the guest opened ever lands in a fixed slot.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <sandbox/workspace.h>

namespace sandbox::wasi {

// Which tree a directory or file belongs to; it decides the policy
// (docs/guest-abi.md#wasi-write-policy).
enum class Mount : std::uint8_t { kNone, kStdlib, kDev, kWorkspace };

struct FdEntry {
  enum class Kind : std::uint8_t { kStdin, kStdout, kStderr, kDirectory, kFile };

  Kind kind = Kind::kFile;
  Mount mount = Mount::kNone;
  std::shared_ptr<WorkspaceNode> node;  // kDirectory and kFile
  std::string preopen_name;             // "/stdlib", "/dev", "/workspace" for preopens
  std::uint64_t position = 0;
  std::uint64_t rights_base = 0;
  std::uint64_t rights_inheriting = 0;
  std::uint16_t fdflags = 0;

  bool is_dir() const { return kind == Kind::kDirectory; }
  bool is_preopen() const { return !preopen_name.empty(); }
};

class FdTable {
 public:
  // Adds the next fixed slot; only before seal().
  void add_fixed(FdEntry entry);
  // Ends the fixed slots: fd_base() = their count.
  void seal();

  std::uint32_t fd_base() const { return static_cast<std::uint32_t>(fixed_.size()); }
  // The open entry at `fd`, or nullptr.
  FdEntry* get(std::uint32_t fd);
  // Appends an entry; nullopt when the guest already holds `max_open` descriptors or the
  // numbers ran out.
  std::optional<std::uint32_t> open(FdEntry entry, std::size_t max_open);
  // Returns false when `fd` was not open.
  bool close(std::uint32_t fd);
  // fd_renumber: moves `from` onto `to` (closing what was there). Returns a WASI errno.
  std::uint32_t renumber(std::uint32_t from, std::uint32_t to);
  // Puts every fixed slot back as seal() found it (a guest may have closed stdout or a
  // preopen, or renumbered one away). Guest-opened descriptors are not touched; when there are
  // none, numbering starts again at fd_base(), as in a new table.
  void restore_fixed();
  // Replaces fixed slot `fd` (below fd_base()), both as it is now and as restore_fixed() puts
  // it back.
  void replace_fixed(std::uint32_t fd, FdEntry entry);
  bool has_open_guest_fds() const { return !guest_.empty(); }
  // Calls fn(entry) for every open descriptor, fixed ones included.
  template <typename Fn>
  void for_each_open(Fn&& fn) const {
    for (const auto& entry : fixed_) {
      if (entry) fn(*entry);
    }
    for (const auto& [fd, entry] : guest_) fn(entry);
  }
  std::size_t open_guest_fds() const { return guest_.size(); }

 private:
  std::vector<std::optional<FdEntry>> fixed_;
  std::vector<FdEntry> sealed_fixed_;  // the fixed slots at seal()
  std::map<std::uint32_t, FdEntry> guest_;
  std::uint32_t next_ = 0;
  bool sealed_ = false;
};

}  // namespace sandbox::wasi

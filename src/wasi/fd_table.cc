#include "wasi/fd_table.h"

#include <cassert>

#include "wasi/abi.h"

namespace sandbox::wasi {

void FdTable::add_fixed(FdEntry entry) {
  assert(!sealed_);
  fixed_.emplace_back(std::move(entry));
}

void FdTable::seal() {
  sealed_ = true;
  next_ = fd_base();
  // add_fixed() fills every slot, and no guest runs before seal() to close one.
  for (const auto& entry : fixed_) {
    sealed_fixed_.push_back(*entry);  // NOLINT(bugprone-unchecked-optional-access): see above
  }
}

void FdTable::restore_fixed() {
  for (std::size_t i = 0; i < sealed_fixed_.size(); ++i) fixed_[i] = sealed_fixed_[i];
  if (guest_.empty()) next_ = fd_base();
}

void FdTable::replace_fixed(std::uint32_t fd, FdEntry entry) {
  assert(sealed_ && fd < fixed_.size());
  sealed_fixed_[fd] = entry;
  fixed_[fd] = std::move(entry);
}

FdEntry* FdTable::get(std::uint32_t fd) {
  if (fd < fixed_.size()) {
    std::optional<FdEntry>& slot = fixed_[fd];
    return slot ? &*slot : nullptr;
  }
  const auto it = guest_.find(fd);
  return it == guest_.end() ? nullptr : &it->second;
}

std::optional<std::uint32_t> FdTable::open(FdEntry entry, std::size_t max_open) {
  // Keep numbers within the positive int range: wasi-libc's fds are C ints.
  if (guest_.size() >= max_open || next_ >= 0x7fffffffu) return std::nullopt;
  const std::uint32_t fd = next_++;
  guest_.emplace(fd, std::move(entry));
  return fd;
}

bool FdTable::close(std::uint32_t fd) {
  if (fd < fixed_.size()) {
    if (!fixed_[fd]) return false;
    fixed_[fd].reset();
    return true;
  }
  return guest_.erase(fd) != 0;
}

std::uint32_t FdTable::renumber(std::uint32_t from, std::uint32_t to) {
  FdEntry* source = get(from);
  if (source == nullptr || get(to) == nullptr) return kEBadf;
  if (from == to) return kSuccess;
  // Invariant 4: a fixed slot never receives a guest-opened entry (it would hide host state
  // from has_open_guest_fds()).
  if (to < fixed_.size()) return kENotsup;
  FdEntry moved = std::move(*source);
  close(from);
  guest_[to] = std::move(moved);
  return kSuccess;
}

}  // namespace sandbox::wasi

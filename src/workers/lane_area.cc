#include "workers/lane_area.h"

#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sandbox::workers {
namespace {

constexpr int kRequiredSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;

}  // namespace

UniqueFd LaneArea::create() {
  UniqueFd fd(::memfd_create("sandbox-lane-area", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (fd.get() < 0) return {};
  if (::ftruncate(fd.get(), static_cast<off_t>(kLaneAreaBytes)) != 0 ||
      ::fcntl(fd.get(), F_ADD_SEALS, kRequiredSeals) != 0) {
    return {};
  }
  return fd;
}

LaneArea::LaneArea(int fd, bool writable) {
  // What the server sent is checked before it is mapped: a shorter file, or one that could be
  // shortened later, would fault on a read past its end.
  struct stat st{};
  if (fd < 0 || ::fstat(fd, &st) != 0 || st.st_size != static_cast<off_t>(kLaneAreaBytes)) return;
  const int seals = ::fcntl(fd, F_GET_SEALS);
  if (seals < 0 || (seals & kRequiredSeals) != kRequiredSeals) return;
  void* p = ::mmap(nullptr, kLaneAreaBytes, writable ? PROT_READ | PROT_WRITE : PROT_READ,
                   MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return;
  data_ = static_cast<char*>(p);
  size_ = kLaneAreaBytes;
  writable_ = writable;
}

LaneArea::~LaneArea() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

LaneArea::LaneArea(LaneArea&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      writable_(std::exchange(other.writable_, false)) {}

LaneArea& LaneArea::operator=(LaneArea&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ::munmap(data_, size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    writable_ = std::exchange(other.writable_, false);
  }
  return *this;
}

}  // namespace sandbox::workers

#include "workers/channel.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <string>
#include <utility>

#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/recycled_buffer.h"

namespace sandbox::workers {
namespace {

// The payload buffer grows by at most this much per read, so a frame whose header claims more
// than its sender writes costs only what arrived.
constexpr std::size_t kReadGrowthBytes = 1 << 20;
// Descriptors accepted with one read; more are closed (the zygote sends one per frame).
constexpr std::size_t kMaxFdsPerRead = 4;

void put_u32(char* out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
void put_u64(char* out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
std::uint64_t get_le(const char* in, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(in[i]);
  return v;
}

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

Channel::Channel(UniqueFd fd, std::size_t max_payload_bytes)
    : in_(std::move(fd)), max_payload_bytes_(max_payload_bytes) {}

Channel::Channel(UniqueFd in, UniqueFd out, std::size_t max_payload_bytes)
    : in_(std::move(in)), out_(std::move(out)), max_payload_bytes_(max_payload_bytes) {}

void Channel::send(std::uint32_t kind, std::uint64_t call, std::string_view payload, int fd) {
  send(kind, call, payload, fd < 0 ? std::span<const int>() : std::span<const int>(&fd, 1));
}

void Channel::send(std::uint32_t kind, std::uint64_t call, std::string_view payload,
                   std::span<const int> fds) {
  if (fds.empty()) {
    send_parts(kind, call, {payload});
    return;
  }
  if (fds.size() > kMaxFdsPerRead) throw ChannelError("too many descriptors for one frame");
  // The descriptors travel with the header's first byte; the rest follows as a plain send.
  std::array<char, kFrameHeaderBytes> header{};
  put_u32(header.data(), static_cast<std::uint32_t>(payload.size()));
  put_u32(header.data() + 4, kind);
  put_u64(header.data() + 8, call);
  std::lock_guard lock(send_mu_);
  iovec iov{header.data(), 1};
  alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int) * kMaxFdsPerRead)> control{};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
  cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
  std::memcpy(CMSG_DATA(cmsg), fds.data(), sizeof(int) * fds.size());
  ssize_t n;
  do {
    n = ::sendmsg(send_fd(), &msg, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n != 1) throw ChannelError("channel closed");
  // The rest of the header and the payload, under the same lock.
  const std::string_view rest(header.data() + 1, header.size() - 1);
  for (const std::string_view part : {rest, payload}) {
    std::size_t done = 0;
    while (done < part.size()) {
      const ssize_t w = ::send(send_fd(), part.data() + done, part.size() - done, MSG_NOSIGNAL);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) throw ChannelError("channel closed");
      done += static_cast<std::size_t>(w);
    }
  }
}

void Channel::send_parts(std::uint32_t kind, std::uint64_t call,
                         const std::vector<std::string_view>& parts) {
  std::size_t total = 0;
  for (const auto& p : parts) total += p.size();
  if (total > UINT32_MAX) throw ChannelError("frame too large to send");
  std::array<char, kFrameHeaderBytes> header{};
  put_u32(header.data(), static_cast<std::uint32_t>(total));
  put_u32(header.data() + 4, kind);
  put_u64(header.data() + 8, call);
  std::vector<iovec> iov;
  iov.reserve(parts.size() + 1);
  iov.push_back({header.data(), header.size()});
  for (const auto& p : parts) {
    if (!p.empty()) iov.push_back({const_cast<char*>(p.data()), p.size()});
  }
  std::lock_guard lock(send_mu_);
  std::size_t first = 0;
  while (first < iov.size()) {
    msghdr msg{};
    msg.msg_iov = iov.data() + first;
    msg.msg_iovlen = std::min<std::size_t>(iov.size() - first, IOV_MAX);
    const ssize_t n = ::sendmsg(send_fd(), &msg, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw ChannelError("channel closed");
    auto left = static_cast<std::size_t>(n);
    while (left > 0 && first < iov.size()) {
      if (left >= iov[first].iov_len) {
        left -= iov[first].iov_len;
        ++first;
      } else {
        iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + left;
        iov[first].iov_len -= left;
        left = 0;
      }
    }
  }
}

void Channel::set_receive_timeout(const Deadline* deadline) {
  std::chrono::milliseconds want{0};
  if (deadline != nullptr) {
    const auto left = *deadline - std::chrono::steady_clock::now();
    if (left <= Deadline::duration::zero()) throw ChannelTimeout("no frame before the deadline");
    // Rounded up, so that a read never times out just before the deadline and spins.
    want = std::min(std::chrono::ceil<std::chrono::milliseconds>(left), kReceiveSlice);
  }
  if (want == receive_timeout_) return;
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(want.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((want.count() % 1000) * 1000);
  if (::setsockopt(in_.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0) {
    throw ChannelError(std::string("channel timeout not set: ") + std::strerror(errno));
  }
  receive_timeout_ = want;
}

Channel::Read Channel::read_some(char* out, std::size_t cap, std::vector<UniqueFd>& fds,
                                 const Deadline* deadline) {
  for (;;) {
    set_receive_timeout(deadline);
    iovec iov{out, cap};
    alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int) * kMaxFdsPerRead)> control{};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    const ssize_t r = ::recvmsg(in_.get(), &msg, MSG_CMSG_CLOEXEC);
    if (r < 0 && errno == EINTR) continue;
    // The receive timeout ended one slice of the wait: the deadline is looked at again.
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && deadline != nullptr) continue;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < count; ++i) {
        int received = -1;
        std::memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        fds.emplace_back(received);
      }
    }
    if (r >= 0) return Read{r, 0};
    if (errno == ECONNRESET || errno == EBADF || errno == EINVAL) return Read{-1, errno};
    throw ChannelError(std::string("channel read failed: ") + std::strerror(errno));
  }
}

bool Channel::read_exact(char* out, std::size_t n, std::vector<UniqueFd>& fds, bool at_frame_start,
                         const Deadline* deadline) {
  std::size_t done = 0;
  while (done < n) {
    if (ahead_begin_ < ahead_end_) {
      const std::size_t take = std::min(n - done, ahead_end_ - ahead_begin_);
      std::memcpy(out + done, ahead_.data() + ahead_begin_, take);
      ahead_begin_ += take;
      done += take;
      continue;
    }
    // Into the frame itself, unless this channel reads ahead (it has two sockets) and less than
    // a read-ahead is left.
    const bool direct = out_.get() < 0 || n - done >= kReadAheadBytes;
    const Read r = direct ? read_some(out + done, n - done, fds, deadline)
                          : read_some(ahead_.data(), ahead_.size(), fds, deadline);
    if (r.bytes <= 0) {
      if (done == 0 && at_frame_start) return false;
      if (r.bytes == 0) throw ChannelError("channel closed in the middle of a frame");
      throw ChannelError(std::string("channel read failed: ") + std::strerror(r.error));
    }
    if (direct) {
      done += static_cast<std::size_t>(r.bytes);
    } else {
      ahead_begin_ = 0;
      ahead_end_ = static_cast<std::size_t>(r.bytes);
    }
  }
  return true;
}

Frame::~Frame() { RecycledBuffer<std::string>::give_back(std::move(payload)); }

std::optional<Frame> Channel::receive() { return receive_frame(nullptr); }

std::optional<Frame> Channel::receive_until(Deadline deadline) { return receive_frame(&deadline); }

std::optional<Frame> Channel::receive_frame(const Deadline* deadline) {
  Frame frame;
  frame.payload = RecycledBuffer<std::string>::take();
  std::array<char, kFrameHeaderBytes> header{};
  if (!read_exact(header.data(), header.size(), frame.fds, true, deadline)) return std::nullopt;
  const std::size_t length = get_le(header.data(), 4);
  frame.kind = static_cast<std::uint32_t>(get_le(header.data() + 4, 4));
  frame.call = get_le(header.data() + 8, 8);
  if (length > max_payload_bytes_) {
    throw ChannelError("frame of " + std::to_string(length) + " bytes is over the limit of " +
                       std::to_string(max_payload_bytes_));
  }
  while (frame.payload.size() < length) {
    const std::size_t at = frame.payload.size();
    const std::size_t step = std::min(length - at, kReadGrowthBytes);
    frame.payload.resize(at + step);
    read_exact(frame.payload.data() + at, step, frame.fds, false, deadline);
  }
  return frame;
}

bool Channel::spin_until_readable(std::chrono::nanoseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (ahead_begin_ < ahead_end_) return true;
    pollfd p{in_.get(), POLLIN, 0};
    if (::poll(&p, 1, 0) > 0) return true;  // bytes, the end, or an error: a read says which
    if (std::chrono::steady_clock::now() >= until) return false;
    ::sched_yield();
  }
}

void Channel::shutdown() {
  ::shutdown(in_.get(), SHUT_RDWR);
  if (out_.get() >= 0) ::shutdown(out_.get(), SHUT_RDWR);
}

}  // namespace sandbox::workers

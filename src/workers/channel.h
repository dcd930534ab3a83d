// Channel: framed messages over one end of a connected AF_UNIX SOCK_STREAM socket pair, the only
// link between the server and a worker process (docs/security.md#worker-processes), or over one
// end of each of two pairs, one per direction (a lane: workers/lane_sockets.h).
//
// A frame is a 16-byte header (payload length u32le, kind u32le, call id u64le) and the payload.
// The call id ties a reply (and the output pieces that precede it) to the call that asked for
// it, so any number of calls can be in flight on one channel at once.
//
// The peer may be compromised: receive() checks the length against the limit given at
// construction before it reads the payload, and grows the buffer as bytes arrive, so a header
// that lies costs nothing. A descriptor sent along a frame (SCM_RIGHTS: only the zygote sends
// them) comes back in Frame::fds; every other receiver closes what it did not expect.
//
// receive_until() gives up at a deadline (ChannelTimeout), for the server's end of a lane, whose
// calling thread waits on it itself (docs/security.md#worker-processes): it sleeps in the read,
// woken by what arrives or by the socket's receive timeout, set to the deadline or to
// kReceiveSlice when that is further, so that a wait checks the deadline again at least that
// often and the timeout of a lane is set once for all its calls. No poll() first: on a lane the
// server never sends on the socket it reads, so nothing else wakes the read (on one socket for
// both ways, the peer reading what this end sent would).
//
// Thread-safety: send() may be called from any number of threads (frames never interleave);
// receive() and receive_until() from one thread at a time. shutdown() may be called from any thread
// and makes a blocked receive() return nullopt.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sandbox::workers {

// Owns a file descriptor; closes it on destruction.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// The channel broke: the peer closed it, died, or sent something that is not a frame.
class ChannelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// receive_until() reached its deadline before a whole frame arrived; the channel is then in the
// middle of a frame and must not be read again.
class ChannelTimeout : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Frame {
  Frame() = default;
  Frame(Frame&&) noexcept = default;
  Frame& operator=(Frame&&) noexcept = default;
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;
  // Gives the payload's memory back to the process's shelf, for the next frame received on any
  // thread (base/recycled_buffer.h): a reply of a few hundred KiB then faults no fresh pages.
  ~Frame();

  std::uint32_t kind = 0;
  std::uint64_t call = 0;
  std::string payload;
  std::vector<UniqueFd> fds;  // received with the frame (SCM_RIGHTS)
  // An answer read on a lane: the lane's shared area (workers/lane_area.h), whose bytes belong
  // to this answer while the frame lives (empty otherwise), and what keeps the lane from its
  // next call until then. A frame that holds a lane must not outlive its WorkerConnection.
  std::span<const char> area;
  std::shared_ptr<void> lane_hold;
};

inline constexpr std::size_t kFrameHeaderBytes = 16;
// What a lane's channel reads in one go past the header it asks for (the rest of a larger frame
// is read straight into the frame).
inline constexpr std::size_t kReadAheadBytes = 4096;
// The longest a receive_until() sleeps in one read before it looks at its deadline again.
inline constexpr std::chrono::milliseconds kReceiveSlice{100};

class Channel {
 public:
  // Takes ownership of `fd`. Frames whose payload is larger than `max_payload_bytes` are refused
  // by receive() (ChannelError).
  Channel(UniqueFd fd, std::size_t max_payload_bytes);
  // A channel over two sockets, one per direction: frames are received from `in` and sent on
  // `out`. A receiver asleep on `in` is then not woken when the peer reads what was sent on `out`
  // (a lane: workers/lane_sockets.h). Such a channel reads ahead: one read takes the header and
  // up to kReadAheadBytes after it, a small frame whole, and keeps what belongs to the next
  // frame. Descriptors that arrive are given to the frame being read, so it is for frames that
  // carry none (a lane's receiver drops them).
  Channel(UniqueFd in, UniqueFd out, std::size_t max_payload_bytes);
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // Sends one frame, with `fd` attached when >= 0. Throws ChannelError when the peer is gone.
  void send(std::uint32_t kind, std::uint64_t call, std::string_view payload, int fd = -1);
  // Sends one frame with `fds` attached (1 to 4; a receiver takes at most 4 per frame).
  void send(std::uint32_t kind, std::uint64_t call, std::string_view payload,
            std::span<const int> fds);
  // Sends one frame whose payload is the concatenation of `parts` (no copy into one buffer).
  void send_parts(std::uint32_t kind, std::uint64_t call,
                  const std::vector<std::string_view>& parts);
  // The next frame, or nullopt once the peer closed the channel (or after shutdown()). Throws
  // ChannelError for a broken frame (too large, cut short, a read error).
  std::optional<Frame> receive();
  // receive(), but throws ChannelTimeout when the whole frame has not arrived by `deadline`.
  std::optional<Frame> receive_until(std::chrono::steady_clock::time_point deadline);
  // Waits, without sleeping, until bytes of the next frame are at hand (read ahead already, or
  // waiting in the socket, or its end) or `limit` has passed; true when they are. The thread
  // yields its CPU between looks, so a task waiting for that CPU (the peer, maybe) still gets it;
  // otherwise it keeps the CPU awake, and what arrives needs no wake-up
  // (docs/security.md#answers-announced).
  bool spin_until_readable(std::chrono::nanoseconds limit);
  // Wakes a blocked receive() and makes further sends fail.
  void shutdown();
  // The socket frames are sent on (the one they are received from too, unless there are two).
  int send_fd() const { return out_.get() >= 0 ? out_.get() : in_.get(); }

 private:
  using Deadline = std::chrono::steady_clock::time_point;
  // What one read got: `bytes` > 0, or 0 at the end of the stream, or -1 when the socket was
  // reset (`error` says how).
  struct Read {
    std::ptrdiff_t bytes = 0;
    int error = 0;
  };

  std::optional<Frame> receive_frame(const Deadline* deadline);
  // Reads exactly `n` bytes into `out`; false on a clean end of stream before the first byte.
  // With a deadline, throws ChannelTimeout past it.
  bool read_exact(char* out, std::size_t n, std::vector<UniqueFd>& fds, bool at_frame_start,
                  const Deadline* deadline);
  // One read of at most `cap` bytes into `out`, asleep until something arrives; the descriptors
  // that come with it are appended to `fds`. With a deadline, throws ChannelTimeout past it.
  Read read_some(char* out, std::size_t cap, std::vector<UniqueFd>& fds, const Deadline* deadline);
  // Sets the socket's receive timeout (SO_RCVTIMEO) for a read that must end by `deadline` (or
  // none when null), only when it differs from the one set; throws ChannelTimeout past it.
  void set_receive_timeout(const Deadline* deadline);

  UniqueFd in_;
  UniqueFd out_;  // none: frames are sent on in_
  std::size_t max_payload_bytes_;
  std::mutex send_mu_;
  // SO_RCVTIMEO of in_ (0: none, a read waits until something arrives).
  std::chrono::milliseconds receive_timeout_{0};
  // A lane's read-ahead (a channel over two sockets reads ahead): bytes read past the end of the
  // frame asked for, [ahead_begin_, ahead_end_), for the next one.
  std::array<char, kReadAheadBytes> ahead_{};
  std::size_t ahead_begin_ = 0;
  std::size_t ahead_end_ = 0;
};

}  // namespace sandbox::workers

// LaneArea: memory the two ends of one lane share (docs/security.md#lane-areas), so 4 KiB blocks
// of an instance's memory pass between them without passing through the socket: the blocks a
// step changed (the worker copies them into the area and the lane's answer carries only their
// list) and the blocks a restore sends (the server copies each piece in, after the pieces
// before, before it sends the piece's frame, which carries only their list and where they are).
//
// The server makes the area (a memfd sealed against shrinking and growing, so the worker can
// never cut it short under a reader), maps it, and sends it to the worker with the lane; both
// map it writable. A lane carries one call at a time, so the area holds the blocks of that call
// and of its answer until the other side has read them (WorkerConnection keeps the lane until
// the answer is destroyed). What the area holds when the server reads it is hostile input like
// the rest of the answer: the server copies each block out once, into the instance's copy, and
// reads nothing twice; a worker that changes the area meanwhile changes only the blocks of its
// own answer, which it could send as it liked anyway. The server never reads back what it wrote
// there: its copy of a restore's blocks comes from its own buffer.
//
// Thread-safety: none; a lane's area is used by the one call on the lane.
#pragma once

#include <cstddef>
#include <span>

#include "workers/channel.h"

namespace sandbox::workers {

// The bytes of one lane's area: 256 blocks of 4 KiB, more than a step of any built-in engine
// changes (Ruby's about 80). Answers with more blocks than fit carry them in the frame instead.
// Memory: the area's pages are made on first write and kept while the lane lives (at most
// kMaxIdleLanes idle lanes per worker, so at most 16 MiB per worker when every lane has carried
// a full area).
inline constexpr std::size_t kLaneAreaBytes = std::size_t{1} << 20;

class LaneArea {
 public:
  // No area: every answer carries its blocks in the frame.
  LaneArea() = default;
  // Maps `fd` (kLaneAreaBytes; read-only unless `writable`). A descriptor that is not a memfd
  // of that size sealed against shrinking, or a failed map, leaves the area empty (no
  // exception): the lane then works without one.
  LaneArea(int fd, bool writable);
  ~LaneArea();
  LaneArea(LaneArea&& other) noexcept;
  LaneArea& operator=(LaneArea&& other) noexcept;
  LaneArea(const LaneArea&) = delete;
  LaneArea& operator=(const LaneArea&) = delete;

  // A new area's memfd, sealed; an invalid descriptor when memfds are not available.
  static UniqueFd create();

  std::span<const char> bytes() const { return {data_, size_}; }
  // Empty unless mapped writable.
  std::span<char> writable() const {
    return writable_ ? std::span<char>(data_, size_) : std::span<char>();
  }

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
  bool writable_ = false;
};

}  // namespace sandbox::workers

// LaneSockets: the sockets of one lane (docs/security.md#worker-processes), two AF_UNIX socket
// pairs, one per direction: the server sends calls on one and reads the answers from the other.
//
// Why two: a thread asleep in recvmsg on a stream socket is woken each time its peer reads what
// that socket sent, since the kernel's wake-up for free send space does not say what it is for.
// On one pair for both directions, a worker's lane thread, asleep for its next call, woke once
// for nothing whenever the server read an answer, and that wake-up was made by the server's
// reading thread on its way to the response. With a pair per direction each side sleeps on a
// socket it only reads from, and the sockets it sends on have no one asleep on them: the worker
// waiting for a call, and the server waiting for an answer in its read (Channel::receive_until,
// with no poll() first).
//
// The server makes both pairs, keeps one end of each (`calls`, `answers`) and sends the
// worker the other two with kLane, in that order, then the lane's area when there is one
// (workers/lane_area.h). take_lane() reads them back on the worker's side.
//
// Thread-safety: none needed; each is made and taken by one thread.
#pragma once

#include <optional>

#include "workers/channel.h"

namespace sandbox::workers {

// A new lane's four ends.
struct LaneSockets {
  UniqueFd calls;           // the server sends calls on it
  UniqueFd answers;         // the server reads answers from it
  UniqueFd worker_calls;    // the worker reads calls from it
  UniqueFd worker_answers;  // the worker sends answers on it
};

// Makes a lane's two socket pairs (close-on-exec); nullopt when the system refuses (no
// descriptors left).
std::optional<LaneSockets> make_lane_sockets();

// What a kLane frame gave the worker.
struct LaneGrant {
  UniqueFd calls;    // read calls from it
  UniqueFd answers;  // send answers on it
  UniqueFd area;     // the lane's area; none when the server could not make one
};

// Takes the descriptors of a kLane frame: the worker's two ends and perhaps the area. Nullopt
// when the frame carries another number (2 or 3 are valid); the frame's descriptors are closed
// with it then.
std::optional<LaneGrant> take_lane(Frame& frame);

}  // namespace sandbox::workers

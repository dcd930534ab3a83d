#include "workers/lane_sockets.h"

#include <utility>

#include <sys/socket.h>

namespace sandbox::workers {
namespace {

// One connected pair; nullopt when socketpair fails.
std::optional<std::pair<UniqueFd, UniqueFd>> make_pair() {
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return std::nullopt;
  return std::pair{UniqueFd(ends[0]), UniqueFd(ends[1])};
}

}  // namespace

std::optional<LaneSockets> make_lane_sockets() {
  auto calls = make_pair();
  if (!calls) return std::nullopt;
  auto answers = make_pair();
  if (!answers) return std::nullopt;
  return LaneSockets{std::move(calls->first), std::move(answers->first), std::move(calls->second),
                     std::move(answers->second)};
}

std::optional<LaneGrant> take_lane(Frame& frame) {
  if (frame.fds.size() != 2 && frame.fds.size() != 3) return std::nullopt;
  LaneGrant grant{std::move(frame.fds[0]), std::move(frame.fds[1]), UniqueFd()};
  if (frame.fds.size() == 3) grant.area = std::move(frame.fds[2]);
  return grant;
}

}  // namespace sandbox::workers

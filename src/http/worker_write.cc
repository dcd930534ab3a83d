#include "http/worker_write.h"

#include <cerrno>
#include <exception>
#include <stdexcept>

#include <boost/beast/core/buffers_range.hpp>
#include <boost/beast/http/serializer.hpp>
#include <sys/socket.h>

#include "http/beast_messages.h"

namespace sandbox {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;

// `res` as it goes on the wire.
std::string serialize(http::response<http::string_body>& res) {
  std::string out;
  http::response_serializer<http::string_body> serializer{res};
  beast::error_code ec;
  while (!serializer.is_done() && !ec) {
    serializer.next(ec, [&](beast::error_code&, const auto& buffers) {
      std::size_t n = 0;
      for (const auto b : beast::buffers_range_ref(buffers)) {
        out.append(static_cast<const char*>(b.data()), b.size());
        n += b.size();
      }
      serializer.consume(n);
    });
  }
  if (ec) throw std::runtime_error("serializing a response: " + ec.message());
  return out;
}

}  // namespace

WorkerWrite send_by_worker(int fd, const HttpResponse& r, unsigned version, bool keep_alive) {
  if (r.body.size() > kWorkerWriteBytes) return {};
  auto res = to_beast(r, version, keep_alive);
  WorkerWrite out{.attempted = true, .keep_alive = res.keep_alive()};
  std::string bytes;
  try {
    bytes = serialize(res);
  } catch (const std::exception&) {
    return {};
  }
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n =
        ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      break;
    } else {
      out.failed = true;
      return out;
    }
  }
  out.rest = bytes.substr(sent);
  return out;
}

}  // namespace sandbox

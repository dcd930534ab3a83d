// A response written by the worker thread that made it, straight to the connection's socket,
// without waking the I/O thread first: the client has its answer one thread hand-off sooner (a
// stateless Lua `1+1` took 0.19 ms p50, of which the hand-back was 0.03-0.05). HttpServer
// (src/http/server.cc) lets a worker do so while the connection's coroutine waits for the
// handler with no operation on the socket; the worker sends without blocking, and what the
// socket does not take at once (or a response over kWorkerWriteBytes, or one that cannot be
// serialized) is left to the coroutine.
//
// Thread-safety: send_by_worker() may run on any thread, provided no other thread uses the
// socket meanwhile.
#pragma once

#include <cstddef>
#include <string>

#include <sandbox/http.h>

namespace sandbox {

// Responses up to this size (of the body) are written by the worker that made them.
inline constexpr std::size_t kWorkerWriteBytes = std::size_t{64} * 1024;

// What a worker did with a response it wrote itself.
struct WorkerWrite {
  bool attempted = false;   // false: the connection's coroutine writes the response
  bool failed = false;      // the connection is broken: close it
  bool keep_alive = false;  // what the response told the client
  std::string rest;         // what the socket did not take at once: the coroutine writes it
};

// Sends `r` (as HTTP `version`, with `keep_alive`) on the connected socket `fd` without blocking
// (MSG_DONTWAIT, no SIGPIPE). Not attempted for a body over kWorkerWriteBytes or a response
// Beast cannot serialize; `failed` on a send error other than EAGAIN and EINTR; otherwise `rest`
// holds what the socket did not take.
WorkerWrite send_by_worker(int fd, const HttpResponse& r, unsigned version, bool keep_alive);

}  // namespace sandbox

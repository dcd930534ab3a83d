// ChunkedStream: the ResponseStream (include/sandbox/http.h) HttpServer hands to a handler whose
// HeadDecision::may_stream was set. The handler's worker thread queues the head and the pieces
// without blocking; the connection's pump coroutine (src/http/server.cc), on the strand that
// owns the socket, takes what is pending at each wake and writes it as HTTP chunks.
//
// The pump sleeps on signal(), a timer that never expires by itself: each open(), write() and
// finish() posts a cancel of it to the strand, which wakes the pump. A failed write of the pump
// marks the stream dead: pending and later pieces are dropped, write() returns false, and the
// handler carries on to its end.
//
// Thread-safety: open(), is_open(), write(), finish(), mark_dead(), dead() and take() may be
// called from any thread (one mutex guards the state); signal() only on the strand it was made
// with. Always owned by a std::shared_ptr (a posted wake holds the stream).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <sandbox/http.h>

#include "base/mutex.h"
#include "base/thread_annotations.h"

namespace sandbox {

class ChunkedStream final : public ResponseStream,
                            public std::enable_shared_from_this<ChunkedStream> {
 public:
  // `strand`: the executor of the connection's coroutine, where the pump waits.
  explicit ChunkedStream(const boost::asio::any_io_executor& strand);

  // ResponseStream: the handler's side.
  void open(int status, std::vector<std::pair<std::string, std::string>> headers) override;
  bool is_open() const override;
  bool write(std::string data) override;

  // The handler returned: the pump ends once everything queued is written.
  void finish();
  // A write to the client failed: drops what is pending and every later piece.
  void mark_dead();
  bool dead() const;

  // What the pump has to write now.
  struct Step {
    bool head = false;  // the head is due (once, after open())
    int status = 200;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string data;       // every piece queued since the last take(), in order
    bool finished = false;  // finish() was called (before this take())
  };
  // Takes what is due: the head once opened (the first time), and the pending data.
  Step take();

  // The timer the pump waits on; cancelled (on the strand) when there is something to take.
  boost::asio::steady_timer& signal() { return signal_; }

 private:
  // Posts the wake to the strand; the posted handler holds the stream, as it may run after the
  // session let go of it.
  void wake();

  mutable Mutex mu_;
  boost::asio::steady_timer signal_;
  bool opened_ SANDBOX_GUARDED_BY(mu_) = false;
  bool head_taken_ SANDBOX_GUARDED_BY(mu_) = false;
  bool finished_ SANDBOX_GUARDED_BY(mu_) = false;
  bool dead_ SANDBOX_GUARDED_BY(mu_) = false;
  int status_ SANDBOX_GUARDED_BY(mu_) = 200;
  std::vector<std::pair<std::string, std::string>> headers_ SANDBOX_GUARDED_BY(mu_);
  std::string pending_ SANDBOX_GUARDED_BY(mu_);
};

}  // namespace sandbox

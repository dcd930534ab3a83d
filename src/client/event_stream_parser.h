// EventStreamParser: reads a Server-Sent Events stream (the execute routes' streamed answer,
// docs/protocol.md#streaming-output) from untrusted bytes, fed in pieces of any size.
//
// Lines end in "\n", "\r\n" or "\r". A blank line dispatches the event collected so far (when it
// has data): its `event` field (default "message") and its `data` fields joined with '\n'.
// Comments (":...") and other fields (id, retry) are ignored. A line longer than
// kMaxEventStreamLineBytes or an event's data longer than kMaxEventStreamEventBytes
// (<sandbox/client.h>) throws EventStreamError, so hostile input costs bounded memory.
//
// Thread-safety: one parser is used by one thread.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <sandbox/client.h>

namespace sandbox {

class EventStreamError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class EventStreamParser {
 public:
  using OnEvent = std::function<void(std::string_view name, std::string_view data)>;
  explicit EventStreamParser(OnEvent on_event) : on_event_(std::move(on_event)) {}

  // Parses `bytes`, dispatching every event they complete. Throws EventStreamError.
  void feed(std::string_view bytes);

 private:
  void line(std::string_view text);

  OnEvent on_event_;
  std::string line_;      // the incomplete line so far
  bool skip_lf_ = false;  // the previous piece ended in '\r': a leading '\n' is its pair
  std::string event_;     // the event field of the event being collected
  std::string data_;      // its data lines, each followed by '\n'
  bool has_data_ = false;
};

}  // namespace sandbox

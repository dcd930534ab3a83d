// EventStreamWriter: the server side of streamed executions (docs/protocol.md#streaming-output).
//
// A handler that may stream wraps the request's ResponseStream (include/sandbox/http.h) in one
// of these, hands observer() to the execution, and passes its answer through finish():
//
//   event: stdout            one event per piece of output the capture accepted,
//   data: "text"             its text as one JSON string (so newlines are safe)
//
//   event: result            exactly once, last: the JSON body the non-streaming answer would
//   data: {...}              have had
//
// The stream is opened (200, content-type text/event-stream) lazily, by the first output or by
// finish(): an error answered before any output (a request error, a binding that could not be
// reached) keeps its normal status and ErrorResponse body. Once open, a failure is still the
// `result` event, carrying that ErrorResponse (its httpStatus tells the status).
//
// The streamed text is bounded by the output limit of the execution (only pieces the capture
// accepted are observed), so the writer does not bound it again.
//
// Thread-safety: used by the handler's thread (the observer runs on the executing thread, the
// same one during a call).
#pragma once

#include <string>
#include <string_view>

#include <sandbox/engine.h>
#include <sandbox/http.h>

namespace sandbox {

// Event names of an execute stream.
inline constexpr std::string_view kStdoutEvent = "stdout";
inline constexpr std::string_view kStderrEvent = "stderr";
inline constexpr std::string_view kResultEvent = "result";

// One event: "event: NAME\n", then "data: LINE\n" for each line of `data` (split at '\n'; a '\r'
// is dropped: it only occurs as JSON whitespace here), then a blank line.
std::string format_event(std::string_view name, std::string_view data);

class EventStreamWriter {
 public:
  // `stream` null: inactive (observer() is empty, finish() returns the response unchanged).
  explicit EventStreamWriter(ResponseStream* stream) : stream_(stream) {}

  bool active() const { return stream_ != nullptr; }
  // Sends each observed piece as a stdout/stderr event; empty when inactive. Valid while the
  // writer lives.
  OutputObserver observer();
  // The handler's answer, `response` (a JSON body): unchanged when inactive or when nothing was
  // streamed and the status is not 2xx; otherwise the stream is opened if needed and the answer
  // returned is the `result` event, which the server sends as the last piece.
  HttpResponse finish(HttpResponse response);

 private:
  void open();
  ResponseStream* stream_;
};

}  // namespace sandbox

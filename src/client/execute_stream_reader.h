// ExecuteStreamReader: the caller side of a streamed execution (docs/protocol.md#streaming-output).
// Fed the bytes of an execute route's event stream, it hands each stdout/stderr event's text to
// an OutputObserver as it arrives and keeps the `result` event, which response() turns back into
// the answer the non-streaming request would have had.
//
// Thread-safety: one reader is used by one thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sandbox/engine.h>
#include <sandbox/http.h>

#include "client/event_stream_parser.h"
#include "client/http_client.h"

namespace sandbox {

class ExecuteStreamReader {
 public:
  explicit ExecuteStreamReader(OutputObserver on_output);

  // Throws EventStreamError for a malformed stream (limits, a stdout/stderr event whose data is
  // not a JSON string, a second result event). Unknown event names are ignored.
  void feed(std::string_view bytes);
  bool has_result() const { return result_.has_value(); }
  // The non-streaming answer: the result event's JSON body as a 200, or, when it is an
  // ErrorResponse envelope, with that envelope's httpStatus. Throws EventStreamError when the
  // stream carried no result event.
  HttpResponse response() const;

 private:
  OutputObserver on_output_;
  EventStreamParser parser_;
  std::optional<std::string> result_;
};

// Sends one request asking for an event stream (Accept: text/event-stream; `body` as JSON) and
// returns what the non-streaming request would have returned, `on_output` having seen the output
// as it arrived. An answer that is not a stream (a request error) is returned as it came.
// Throws TransportError (also for a malformed stream or one without a result event).
HttpResponse request_execute_stream(HttpClient& client, const std::string& path,
                                    const std::string& body,
                                    std::vector<std::pair<std::string, std::string>> headers,
                                    const OutputObserver& on_output);

}  // namespace sandbox

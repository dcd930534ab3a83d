#include "client/execute_stream_reader.h"

#include <boost/algorithm/string/predicate.hpp>
#include <boost/json/parse.hpp>

#include "http/event_stream.h"

namespace sandbox {

ExecuteStreamReader::ExecuteStreamReader(OutputObserver on_output)
    : on_output_(std::move(on_output)),
      parser_([this](std::string_view name, std::string_view data) {
        if (name == kStdoutEvent || name == kStderrEvent) {
          if (result_) throw EventStreamError("output after the result event");
          boost::system::error_code ec;
          const boost::json::value text = boost::json::parse(data, ec);
          if (ec || !text.is_string()) {
            throw EventStreamError("the data of a " + std::string(name) +
                                   " event is not a JSON string");
          }
          if (on_output_) {
            on_output_(name == kStdoutEvent ? OutputStream::kStdout : OutputStream::kStderr,
                       std::string_view(text.get_string()));
          }
        } else if (name == kResultEvent) {
          if (result_) throw EventStreamError("a second result event");
          result_ = std::string(data);
        }
      }) {}

void ExecuteStreamReader::feed(std::string_view bytes) { parser_.feed(bytes); }

HttpResponse ExecuteStreamReader::response() const {
  if (!result_) throw EventStreamError("the event stream ended without a result event");
  int status = 200;
  boost::system::error_code ec;
  const boost::json::value body = boost::json::parse(*result_, ec);
  if (!ec && body.is_object()) {
    const auto& o = body.get_object();
    const auto* http_status = o.if_contains("httpStatus");
    const auto* code = o.if_contains("code");
    if (http_status && http_status->is_int64() && code && code->is_string() &&
        http_status->get_int64() >= 400 && http_status->get_int64() <= 599) {
      status = static_cast<int>(http_status->get_int64());
    }
  }
  // Built by hand: the client library does not link the server's HttpResponse helpers.
  HttpResponse out;
  out.status = status;
  out.headers = {{"content-type", "application/json"}};
  out.body = *result_;
  return out;
}

HttpResponse request_execute_stream(HttpClient& client, const std::string& path,
                                    const std::string& body,
                                    std::vector<std::pair<std::string, std::string>> headers,
                                    const OutputObserver& on_output) {
  headers.emplace_back("content-type", "application/json");
  headers.emplace_back("accept", "text/event-stream");
  ExecuteStreamReader reader(on_output);
  bool streamed = false;
  HttpResponse response;
  try {
    response = client.request_streaming("POST", path, body, headers, [&](std::string_view piece) {
      streamed = true;
      reader.feed(piece);
    });
    bool event_stream = streamed;
    for (const auto& [name, value] : response.headers) {
      if (boost::algorithm::iequals(name, "content-type") && value == "text/event-stream") {
        event_stream = true;
      }
    }
    if (!event_stream) return response;
    return reader.response();
  } catch (const EventStreamError& e) {
    throw TransportError(std::string("reading the event stream failed: ") + e.what());
  }
}

}  // namespace sandbox

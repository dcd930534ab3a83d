#include "http/event_stream.h"

#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

namespace sandbox {

std::string format_event(std::string_view name, std::string_view data) {
  std::string out;
  out.reserve(name.size() + data.size() + 16);
  out += "event: ";
  out += name;
  out += '\n';
  for (;;) {
    const auto nl = data.find('\n');
    out += "data: ";
    for (const char c : data.substr(0, nl)) {
      if (c != '\r') out += c;
    }
    out += '\n';
    if (nl == std::string_view::npos) break;
    data.remove_prefix(nl + 1);
  }
  out += '\n';
  return out;
}

void EventStreamWriter::open() {
  stream_->open(200, {{"content-type", "text/event-stream"},
                      {"cache-control", "no-store"},
                      {"x-accel-buffering", "no"}});
}

OutputObserver EventStreamWriter::observer() {
  if (!stream_) return {};
  return [this](OutputStream stream, std::string_view text) {
    if (text.empty()) return;
    if (!stream_->is_open()) open();
    stream_->write(format_event(stream == OutputStream::kStdout ? kStdoutEvent : kStderrEvent,
                                boost::json::serialize(boost::json::string(text))));
  };
}

HttpResponse EventStreamWriter::finish(HttpResponse response) {
  if (!stream_) return response;
  const bool ok = response.status >= 200 && response.status < 300;
  if (!stream_->is_open()) {
    if (!ok) return response;
    open();
  }
  HttpResponse last;
  last.status = 200;
  last.body = format_event(kResultEvent, response.body);
  return last;
}

}  // namespace sandbox

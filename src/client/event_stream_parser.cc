#include "client/event_stream_parser.h"

namespace sandbox {

void EventStreamParser::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    if (skip_lf_) {
      skip_lf_ = false;
      if (bytes.front() == '\n') {
        bytes.remove_prefix(1);
        continue;
      }
    }
    const auto end = bytes.find_first_of("\r\n");
    const std::string_view piece = bytes.substr(0, end);
    if (line_.size() + piece.size() > kMaxEventStreamLineBytes) {
      throw EventStreamError("event stream line longer than " +
                             std::to_string(kMaxEventStreamLineBytes) + " bytes");
    }
    if (end == std::string_view::npos) {
      line_ += piece;
      return;
    }
    if (line_.empty()) {
      line(piece);
    } else {
      line_ += piece;
      const std::string complete = std::move(line_);
      line_.clear();
      line(complete);
    }
    skip_lf_ = bytes[end] == '\r';
    bytes.remove_prefix(end + 1);
  }
}

void EventStreamParser::line(std::string_view text) {
  if (text.empty()) {
    if (has_data_) {
      std::string data = std::move(data_);
      if (!data.empty()) data.pop_back();  // the '\n' after the last data line
      const std::string name = event_.empty() ? std::string("message") : std::move(event_);
      data_.clear();
      event_.clear();
      has_data_ = false;
      on_event_(name, data);
    } else {
      event_.clear();
    }
    return;
  }
  if (text.front() == ':') return;  // a comment
  const auto colon = text.find(':');
  const std::string_view field = text.substr(0, colon);
  std::string_view value =
      colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field == "event") {
    event_ = std::string(value.substr(0, kMaxEventStreamLineBytes));
  } else if (field == "data") {
    if (data_.size() + value.size() + 1 > kMaxEventStreamEventBytes) {
      throw EventStreamError("event stream event longer than " +
                             std::to_string(kMaxEventStreamEventBytes) + " bytes");
    }
    data_ += value;
    data_ += '\n';
    has_data_ = true;
  }
}

}  // namespace sandbox

#include "server/request_log.h"

#include <cstdio>

#include <sandbox/clock.h>

namespace sandbox {

std::string format_request_log(const RequestLogEntry& e, std::int64_t now_ms) {
  char duration[32];
  std::snprintf(duration, sizeof duration, "%.1fms", e.duration_ms);
  std::string line = iso8601_ms(now_ms) + " " + e.method + " " + e.path + " " +
                     std::to_string(e.status) + " " + duration;
  line += " sandbox=" + (e.sandbox_id.empty() ? std::string("-") : e.sandbox_id);
  return line;
}

}  // namespace sandbox

// One line per request: time, method, path, status, duration, sandbox id.
//
//   2026-09-08T12:34:56.789Z POST /sandboxes/demo/execute 200 12.3ms sandbox=demo
#pragma once

#include <cstdint>
#include <string>

namespace sandbox {

struct RequestLogEntry {
  std::string method;
  std::string path;  // without the query string
  int status = 0;
  double duration_ms = 0;
  std::string sandbox_id;  // empty when the route has none
};

std::string format_request_log(const RequestLogEntry& entry, std::int64_t now_ms);

}  // namespace sandbox

#include <chrono>
#include <cstdio>
#include <ctime>

#include <sandbox/clock.h>

namespace sandbox {

std::int64_t SystemClock::now_ms() const {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string iso8601_ms(std::int64_t epoch_ms) {
  std::int64_t secs = epoch_ms / 1000;
  std::int64_t ms = epoch_ms % 1000;
  if (ms < 0) {
    ms += 1000;
    secs -= 1;
  }
  const std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

bool parse_iso8601_ms(const std::string& text, std::int64_t& out) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, ms = 0;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ%n", &y, &mo, &d, &h, &mi, &s, &ms,
                  &consumed) == 7 &&
      static_cast<std::size_t>(consumed) == text.size()) {
  } else if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &y, &mo, &d, &h, &mi, &s,
                         &consumed) == 6 &&
             static_cast<std::size_t>(consumed) == text.size()) {
    ms = 0;
  } else {
    return false;
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  out = static_cast<std::int64_t>(timegm(&tm)) * 1000 + ms;
  return true;
}

}  // namespace sandbox

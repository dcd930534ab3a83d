// Clock: the source of wall-clock time for everything that stamps or expires state.
//
// Timestamps in the protocol are epoch milliseconds (updatedAt, takenAt, expiresAt) or ISO-8601
// strings derived from them (createdAt, lastUsed). Servers take a Clock in their constructor so
// tests can drive idle expiry and timestamps without sleeping. Implementations must be safe to
// call from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace sandbox {

class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since the Unix epoch.
  virtual std::int64_t now_ms() const = 0;
};

// The real clock (CLOCK_REALTIME).
class SystemClock final : public Clock {
 public:
  std::int64_t now_ms() const override;
};

// A clock that only moves when told to; for tests.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(std::int64_t start_ms = 1'700'000'000'000) : now_(start_ms) {}
  std::int64_t now_ms() const override { return now_.load(); }
  void set(std::int64_t ms) { now_.store(ms); }
  void advance(std::int64_t ms) { now_.fetch_add(ms); }

 private:
  std::atomic<std::int64_t> now_;
};

// Formats epoch milliseconds as JavaScript's Date.toISOString() does: 2026-09-08T12:34:56.789Z.
std::string iso8601_ms(std::int64_t epoch_ms);

// Parses the format iso8601_ms() produces (and the same without milliseconds). Returns false
// and leaves `out` untouched when the text is not such a timestamp.
[[nodiscard]] bool parse_iso8601_ms(const std::string& text, std::int64_t& out);

}  // namespace sandbox

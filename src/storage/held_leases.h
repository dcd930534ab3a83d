// HeldLeases: the fencing tokens one store instance holds, per key, and when each grant should
// next be renewed (lease.h "Renewal cost"). Both backends keep one per scope.
//
// Thread-safety: every method locks an internal mutex; safe from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sandbox {

class HeldLeases {
 public:
  using Clock = std::chrono::steady_clock;

  // The token held for `key`, if any.
  std::optional<std::int64_t> token(std::string_view key) const {
    std::lock_guard lock(mu_);
    const auto it = held_.find(key);
    if (it == held_.end()) return std::nullopt;
    return it->second.token;
  }

  // The token held for `key` when its grant has more than half its TTL left at `now`.
  std::optional<std::int64_t> fresh_token(std::string_view key, Clock::time_point now) const {
    std::lock_guard lock(mu_);
    const auto it = held_.find(key);
    if (it == held_.end() || now >= it->second.renew_after) return std::nullopt;
    return it->second.token;
  }

  // Records a grant of `token` for `ttl_ms`, asked for at `asked` (before the database call, so
  // the local deadline is never later than the database's).
  void record(std::string_view key, std::int64_t token, Clock::time_point asked,
              std::int64_t ttl_ms) {
    std::lock_guard lock(mu_);
    held_.insert_or_assign(std::string(key),
                           Held{token, asked + std::chrono::milliseconds(ttl_ms / 2)});
  }

  // Forgets `key` (only while it still holds `token`, when given).
  void forget(std::string_view key, std::optional<std::int64_t> token = std::nullopt) {
    std::lock_guard lock(mu_);
    const auto it = held_.find(key);
    if (it != held_.end() && (!token || it->second.token == *token)) held_.erase(it);
  }

  // Every held (key, token).
  std::vector<std::pair<std::string, std::int64_t>> all() const {
    std::lock_guard lock(mu_);
    std::vector<std::pair<std::string, std::int64_t>> out;
    out.reserve(held_.size());
    for (const auto& [key, h] : held_) out.emplace_back(key, h.token);
    return out;
  }

 private:
  struct Held {
    std::int64_t token;
    Clock::time_point renew_after;
  };
  mutable std::mutex mu_;
  std::map<std::string, Held, std::less<>> held_;
};

}  // namespace sandbox

#include "interpreter/key_leases.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "storage/interpreter_store.h"

namespace sandbox {

KeyLeases::KeyLeases(InterpreterStore& store, Counter* takeovers)
    : store_(store), takeovers_(takeovers) {}

LeaseGrant KeyLeases::claim(const std::string& key) {
  const LeaseGrant grant = store_.acquire_lease(key);
  if (grant.taken_over() && takeovers_ != nullptr) takeovers_->add();
  std::lock_guard lock(mu_);
  deferred_.erase(key);
  return grant;
}

void KeyLeases::defer(const std::string& key, std::int64_t now_ms, std::int64_t remaining_ms) {
  std::lock_guard lock(mu_);
  deferred_[key] = now_ms + std::max<std::int64_t>(remaining_ms, kMinAlarmDeferralMs);
}

bool KeyLeases::deferred(const std::string& key, std::int64_t now_ms) const {
  std::lock_guard lock(mu_);
  const auto it = deferred_.find(key);
  return it != deferred_.end() && it->second > now_ms;
}

std::int64_t KeyLeases::effective_deadline(const std::string& key, std::int64_t deadline_ms) const {
  std::lock_guard lock(mu_);
  const auto it = deferred_.find(key);
  return it == deferred_.end() ? deadline_ms : std::max(deadline_ms, it->second);
}

AlarmLease::~AlarmLease() {
  if (!taken_) return;
  try {
    store_.release_lease(key_);
  } catch (const std::exception& e) {
    spdlog::warn("interpreter {}: releasing the lease failed: {}", key_, e.what());
  }
}

}  // namespace sandbox

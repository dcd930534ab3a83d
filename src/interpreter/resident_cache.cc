#include "interpreter/resident_cache.h"

#include <algorithm>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

namespace sandbox {

void drop_resident(KeyState& state) {
  if (!state.resident) return;
  try {
    state.resident->instance->close();
  } catch (const std::exception& e) {
    spdlog::warn("closing an instance failed: {}", e.what());
  }
  state.resident.reset();
}

ResidentCache::ResidentCache(const Clock& clock, std::size_t max_resident)
    : clock_(clock), max_resident_(max_resident) {}

std::shared_ptr<KeyState> ResidentCache::state_for(const std::string& key) {
  std::lock_guard lock(mu_);
  auto& slot = keys_[key];
  if (!slot) slot = std::make_shared<KeyState>(clock_);
  return slot;
}

bool ResidentCache::has(const std::string& key) const {
  std::lock_guard lock(mu_);
  return keys_.contains(key);
}

void ResidentCache::release_if_idle(const std::string& key) {
  std::lock_guard lock(mu_);
  const auto it = keys_.find(key);
  if (it == keys_.end() || it->second.use_count() != 1) return;  // someone is working on it
  KeyState& state = *it->second;
  // Nobody else holds a reference, so nobody holds or waits for the lock: try_lock succeeds.
  if (!state.lock.try_lock()) return;
  const bool idle = !state.resident;
  state.lock.unlock();
  if (idle) keys_.erase(it);
}

std::size_t ResidentCache::key_count() const {
  std::lock_guard lock(mu_);
  return keys_.size();
}

void ResidentCache::note_used(KeyState& state) { state.last_used = ++tick_; }

std::size_t ResidentCache::enforce_cap(const KeyState* self) {
  std::lock_guard lock(mu_);
  std::vector<std::pair<std::uint64_t, std::string>> candidates;
  std::size_t resident = 1;  // self
  for (const auto& [k, s] : keys_) {
    if (s.get() == self) continue;
    if (!s->lock.try_lock()) {
      ++resident;  // busy: assume resident, cannot evict now
      continue;
    }
    if (s->resident) {
      ++resident;
      candidates.emplace_back(s->last_used.load(), k);
    }
    s->lock.unlock();
  }
  std::sort(candidates.begin(), candidates.end());
  std::size_t evicted = 0;
  for (const auto& [t, k] : candidates) {
    if (resident <= max_resident_) break;
    auto it = keys_.find(k);
    if (it == keys_.end() || !it->second->lock.try_lock()) continue;
    KeyState& s = *it->second;
    if (s.resident) {
      // The evict transition (docs/contexts.md#evict): instance and mirror go; the snapshot and
      // the caller's next manifest bring both back.
      drop_resident(s);
      s.mirror = std::make_unique<Workspace>(clock_);
      --resident;
      ++evicted;
    }
    s.lock.unlock();
    if (it->second.use_count() == 1) keys_.erase(it);  // nobody else refers to it
  }
  return evicted;
}

std::size_t ResidentCache::resident_count() const {
  std::lock_guard lock(mu_);
  std::size_t n = 0;
  for (const auto& [k, s] : keys_) {
    // Only an idle key can be inspected safely; a busy one counts as resident.
    if (s->lock.try_lock()) {
      n += s->resident.has_value();
      s->lock.unlock();
    } else {
      ++n;
    }
  }
  return n;
}

void ResidentCache::close_all() {
  std::lock_guard lock(mu_);
  for (auto& [key, state] : keys_) {
    std::lock_guard key_lock(state->lock);
    drop_resident(*state);
  }
}

}  // namespace sandbox

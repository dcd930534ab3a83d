// ResidentCache: the table of interpreter keys (one KeyState actor each) and the global cap on
// resident instances (docs/contexts.md#cl10). Live instances cost memory (a whole Wasm linear
// memory each), so across all keys at most `max_resident` of them stay live; past that the least
// recently used idle key loses its resident and its workspace mirror ("eviction"), and both come
// back on its next call (restore from its snapshot, re-sync from the caller).
//
// A key whose FifoLock is held or waited for is busy: it is never inspected nor evicted, and it
// counts as resident. A KeyState nobody refers to any more is removed from the table when it is
// evicted (the map holds only shared_ptrs, so a caller working on a key keeps it alive).
//
// Thread-safety: every method may be called from any thread. enforce_cap() must be called by the
// holder of `self`'s lock; it takes other keys' locks only with try_lock (never waits), so two
// keys enforcing the cap at once cannot deadlock.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <sandbox/clock.h>

#include "interpreter/session_state.h"

namespace sandbox {

// Closes and forgets `state`'s resident instance; nothing without one. A failing close() is
// logged and the resident is dropped anyway (its state is on disk or deliberately not).
// Requires `state`'s lock.
void drop_resident(KeyState& state);

class ResidentCache {
 public:
  // `clock` must outlive the cache (it stamps the fresh mirrors of evicted keys).
  ResidentCache(const Clock& clock, std::size_t max_resident);
  ResidentCache(const ResidentCache&) = delete;
  ResidentCache& operator=(const ResidentCache&) = delete;

  // The actor of `key`, created on first use. The caller locks `->lock` before touching it.
  std::shared_ptr<KeyState> state_for(const std::string& key);

  // Whether `key` has an actor now (without creating one).
  bool has(const std::string& key) const;
  // Forgets `key`'s actor when nobody else refers to it and it has no resident instance: a key
  // that holds nothing live costs no memory between requests (its rows stay in the store).
  // Call it without holding the key's lock.
  void release_if_idle(const std::string& key);
  // How many keys have an actor (tests: state is not made for requests that create nothing).
  std::size_t key_count() const;

  // Marks `state`'s resident as the most recently used (called when it becomes live).
  void note_used(KeyState& state);

  // Evicts the least recently used idle keys other than `self` until at most `max_resident`
  // residents remain (self counts as one; busy keys count and cannot be evicted, so the cap may
  // stay exceeded until they finish). Returns how many keys were evicted.
  std::size_t enforce_cap(const KeyState* self);

  // How many keys have a resident now (busy keys count as resident).
  std::size_t resident_count() const;

  // Closes every resident, waiting for each key's lock (server shutdown).
  void close_all();

  std::size_t max_resident() const { return max_resident_; }

 private:
  const Clock& clock_;
  const std::size_t max_resident_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<KeyState>, std::less<>> keys_;
  std::atomic<std::uint64_t> tick_{0};
};

}  // namespace sandbox

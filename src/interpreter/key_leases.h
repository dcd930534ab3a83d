// KeyLeases: this node's ownership of interpreter keys when several runtime nodes share one store
// (storage/lease.h for the lease rows and their guarantees; docs/contexts.md#cl11 for what a
// take-over does to a context).
//
// Before acting on a key the server claims it: the store takes or renews this node's lease and
// returns its fencing token. A token different from the one the key's actor last saw means
// another node may have changed the key meanwhile; ContextLifecycle::take_over() then drops
// everything cached. While another node holds a live lease, claim() throws LeaseHeldError (the
// server answers 503). With a store without ownership (SQLite on one machine) every claim returns
// token 0 and nothing changes.
//
// Idle expiry and leases: a due alarm of a key another live node holds is that node's business;
// this node defers it (not before the other lease can have run out) instead of retrying it on
// every timer tick. A lease taken only to run an alarm is given back afterwards (AlarmLease), so
// the key's next request may go to any node.
//
// Thread-safety: every method may be called from any thread; claim() requires the key's lock.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "storage/lease.h"

namespace sandbox {

class InterpreterStore;

class KeyLeases {
 public:
  // `store` must outlive this object; so must `takeovers` (may be null), which counts the
  // take-overs (LeaseGrant::taken_over) claim() makes.
  explicit KeyLeases(InterpreterStore& store, Counter* takeovers = nullptr);
  KeyLeases(const KeyLeases&) = delete;
  KeyLeases& operator=(const KeyLeases&) = delete;

  // Takes or renews this node's lease on `key` and lifts any deferral of its alarm. Throws
  // LeaseHeldError while another live node holds it, StorageError on a backend failure.
  LeaseGrant claim(const std::string& key);

  // Skips `key`'s alarm until `not_before_ms` (clock ms): another node held its lease for
  // `remaining_ms` more; at least kMinAlarmDeferralMs so a lease about to run out is not polled.
  void defer(const std::string& key, std::int64_t now_ms, std::int64_t remaining_ms);
  // Whether `key`'s alarm is deferred past `now_ms`.
  bool deferred(const std::string& key, std::int64_t now_ms) const;
  // `deadline_ms` moved past `key`'s deferral, if any (when the expiry timer should next wake).
  std::int64_t effective_deadline(const std::string& key, std::int64_t deadline_ms) const;

  static constexpr std::int64_t kMinAlarmDeferralMs = 100;

 private:
  InterpreterStore& store_;
  Counter* takeovers_;
  mutable std::mutex mu_;
  // Keys whose idle alarm is due but whose lease another node holds: not before (clock ms).
  std::map<std::string, std::int64_t, std::less<>> deferred_;
};

// Gives back, on destruction, a lease that was acquired (`grant.acquired`) only to run an idle
// alarm. A failing release is logged: the lease then simply runs out after its TTL.
class AlarmLease {
 public:
  AlarmLease(InterpreterStore& store, std::string key, const LeaseGrant& grant)
      : store_(store), key_(std::move(key)), taken_(grant.acquired) {}
  ~AlarmLease();
  AlarmLease(const AlarmLease&) = delete;
  AlarmLease& operator=(const AlarmLease&) = delete;

 private:
  InterpreterStore& store_;
  std::string key_;
  bool taken_;
};

}  // namespace sandbox

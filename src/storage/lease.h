// Ownership of a key by one node among several that share one database
// (docs/several-nodes.md): a lease row per interpreter key / sandbox id and a fencing token.
//
// The lease row (table `leases`, both backends): (scope, key) -> owner node id, fencing token,
// expiry (epoch ms by the database's own clock, so node clocks never matter). `scope` is
// "interpreter" for InterpreterStore keys and "sandbox" for SandboxStore ids.
//
// Lifecycle of one lease row, as seen by node N (functions named at each transition):
//
//   [no row] --acquire_lease: insert, token 1------------------------> [owned by N, live]
//   [owned by N, live]  --acquire_lease (N holds the token): renew expiry, same token
//   [owned by N, live]  --time passes---------------------------------> [owned by N, expired]
//   [owned by N, expired] --acquire_lease by N holding the token: renew, same token
//   [owned by M, expired] or [owned by N, a token N does not hold (N restarted)]
//        --acquire_lease by N: owner := N, token + 1 (a take-over; N reloads the key's state)
//   [owned by M, live]  --acquire_lease by N: refused with LeaseHeldError, nothing changes
//   [owned by N]        --release_lease / release_all_leases: expiry := 0 (token kept)
//
// Rows are never deleted (not even by wipe()), so a key's token only ever grows.
//
// Guarantees:
//  1. Fencing: every write method of a store, in its own transaction, first reads the key's
//     lease row with a lock that a concurrent take-over must wait for. When this store instance
//     holds a token for the key, the write commits only if the row still names this node with
//     that token; otherwise it throws FencedWriteError and changes nothing (invariant 4 of the
//     stores). So a node that lost a key can never write over its new owner's state, even when
//     its lease expired while it was paused in the middle of an operation.
//  2. A write on a key this instance holds no token for (tests, tools, a node that never asked)
//     is refused with FencedWriteError only while another node holds a live lease on the key
//     (checked when the write runs; unlike 1, it does not order itself against a lease being
//     created at the same moment). The servers always acquire before they write.
//  3. At most one node holds a live lease on a key at a time (by the database clock).
//  4. acquire_lease() reports a take-over (`acquired`): the caller must then drop whatever it
//     cached about the key and reload it from storage, since another node may have changed it.
//
// Renewal cost: a store remembers its grants; acquire_lease() on a key it holds with more than
// half the TTL left (by the local monotonic clock, started before the database granted it)
// returns the held token without a database round trip.
//
// Node ids must be unique among live nodes. Two live processes with the same id take the key
// from each other on every acquire (each take-over fences the other's writes, so state stays
// consistent, but work is repeated); a restarted node with its old id takes its keys back at
// once instead of waiting for their expiry.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <sandbox/metrics.h>

#include "storage/storage_error.h"

namespace sandbox {

// The shortest and longest lease a node may be configured to take (--lease-ttl-ms): below
// 100 ms a lease would lapse between two requests of one client; past a day a crashed node's
// sandboxes would wait as long for another node.
inline constexpr std::int64_t kMinLeaseTtlMs = 100;
inline constexpr std::int64_t kMaxLeaseTtlMs = 86'400'000;

struct LeaseOptions {
  // This node's id in the lease rows (sandboxd --node-id; default: the host name).
  std::string node_id = "local";
  // How long an acquired or renewed lease lasts (sandboxd --lease-ttl-ms).
  std::int64_t ttl_ms = 30'000;
};

// The result of acquire_lease().
struct LeaseGrant {
  // The fencing token this store now holds for the key (0 from a store without ownership).
  std::int64_t token = 0;
  // True when the token is new to this store instance: a first acquisition or a take-over.
  bool acquired = false;

  // A take-over: this acquisition moved an existing lease row to a new token (its owner was
  // another node, stopped, crashed or routed away; or this node before a restart, or after it
  // gave the lease back). Tokens start at 1 and grow only on a change of hands, so a new token
  // above 1 is one.
  bool taken_over() const { return acquired && token > 1; }
};

// The counter of take-overs in `scope` ("sandbox" or "interpreter"):
// sandbox_lease_takeovers_total{scope} (docs/sandbox-api.md#metrics).
inline Counter& lease_takeover_counter(MetricsRegistry& registry, std::string_view scope) {
  return registry.counter("sandbox_lease_takeovers_total",
                          "Leases this node took over from a previous owner, by scope",
                          {{"scope", std::string(scope)}});
}

// Another node holds a live lease on the key. Every boundary answers it as
// ErrorKind::kHeldByAnotherNode (503, retryable, docs/errors.md) with a message naming the
// scope: "Sandbox unavailable on this node: ...; retry later" (scope "sandbox"), "Interpreter
// key unavailable on this node: ...; retry later" (scope "interpreter"), else "Unavailable on
// this node: ...; retry later".
class LeaseHeldError : public StorageError {
 public:
  LeaseHeldError(const std::string& what, std::string owner, std::int64_t remaining_ms,
                 std::string scope = {})
      : StorageError(what),
        owner_(std::move(owner)),
        remaining_ms_(remaining_ms),
        scope_(std::move(scope)) {}
  const std::string& owner() const { return owner_; }
  ErrorKind kind() const noexcept override { return ErrorKind::kHeldByAnotherNode; }
  std::string wire_message() const override {
    const char* subject = scope_ == "sandbox"       ? "Sandbox unavailable"
                          : scope_ == "interpreter" ? "Interpreter key unavailable"
                                                    : "Unavailable";
    return std::string(subject) + " on this node: " + what() + "; retry later";
  }
  // How long the other node's lease still runs (by the database clock), >= 0.
  std::int64_t remaining_ms() const { return remaining_ms_; }
  // The lease scope ("sandbox", "interpreter"), empty when not known.
  const std::string& scope() const { return scope_; }

 private:
  std::string owner_;
  std::int64_t remaining_ms_;
  std::string scope_;
};

// A write was refused because the key belongs to another owner or token now (guarantee 1, 2).
class FencedWriteError : public StorageError {
 public:
  using StorageError::StorageError;
};

}  // namespace sandbox

// SandboxService: the registry of Sandbox actors of one server (sandboxd's core). It routes a
// call to the actor of its sandbox id, creating the actor on first use, and runs the idle
// alarms.
//
// Concurrency: calls on one sandbox id run one at a time in arrival order (a FIFO lock per id);
// calls on different ids run in parallel on their callers' threads (no global lock is held while
// a call runs). At most `max_cached_sandboxes` idle actors stay in memory (least recently used
// dropped first); a dropped actor's state is all in the store, so only caches are lost (the
// loaded workspace tree, and a remote binding's record of what its mirror holds).
//
// Thread-safety: all public methods may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <sandbox/clock.h>
#include <sandbox/http.h>
#include <sandbox/metrics.h>

#include "sandbox/binding.h"
#include "sandbox/sandbox.h"
#include "storage/sandbox_store.h"

namespace sandbox {

struct SandboxServiceOptions {
  SandboxOptions sandbox;
  std::size_t max_cached_sandboxes = 256;
  // Run the idle alarms on a background thread (tests call run_due_alarms() instead). The thread
  // sleeps until the earliest deadline, but at most `expiry_poll_ms`, so a deadline armed while
  // it sleeps is noticed within that time.
  bool background_expiry = false;
  std::int64_t expiry_poll_ms = 1'000;
  // Where the sandboxes count workspace bytes written and sandbox lease take-overs
  // (docs/sandbox-api.md#metrics); null: nowhere. Borrowed: must outlive the service.
  MetricsRegistry* metrics = nullptr;
};

// SANDBOX_IDLE_TTL_MS as docs/protocol.md#idle-expiry (T0) parses it: unset/empty/invalid/negative
// -> 24 h, "0" disables.
std::int64_t parse_sandbox_idle_ttl(const char* value);
// SANDBOX_FILE_API: exactly "disabled" turns the files API off.
bool parse_file_api(const char* value);

class SandboxService {
 public:
  // `store`, `clock` and `bindings` must outlive the service.
  SandboxService(SandboxStore& store, const Clock& clock, const BindingSet& bindings,
                 SandboxServiceOptions options = {});
  ~SandboxService();
  SandboxService(const SandboxService&) = delete;
  SandboxService& operator=(const SandboxService&) = delete;

  // Validates `sandbox_id` (400 VALIDATION_FAILED with the message of
  // docs/sandbox-api.md#identifiers), then runs the route on its actor. `path` is the rest after
  // /sandboxes/{id}. Never throws. `on_output` (optional) sees the guest's output of a POST
  // /execute while it runs (streaming, docs/sandbox-api.md#streaming-output).
  HttpResponse handle(const std::string& sandbox_id, const std::string& method,
                      const std::string& path, const std::string& body,
                      const OutputObserver& on_output = {});

  // Runs the alarm handler of every sandbox whose deadline has passed by the clock. Returns how
  // many sandboxes were destroyed. A sandbox whose lease another node holds (several nodes over
  // one database) is skipped until that lease would run out.
  int run_due_alarms();
  // The earliest armed deadline (epoch ms), if any, counting such a skipped sandbox's at the
  // end of the other node's lease.
  std::optional<std::int64_t> next_alarm() const;

  const BindingSet& bindings() const;
  const SandboxOptions& options() const;
  // Actors currently in memory.
  std::size_t cached_sandboxes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sandbox

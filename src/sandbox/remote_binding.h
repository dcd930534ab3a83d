// A binding to a runtime server reached over HTTP (`sandboxd --binding NAME=http://host:port`),
// e.g. `sandbox-runtime`, `sandbox-calc`, or another sandboxd's /runtimes/<BINDING>.
//
// Executions use the HTTP transport with the resync handshake (docs/protocol.md#resync-handshake):
// POST {url}/interpreters/:key/execute {contextId, code, envVars, workspace: {dirs, manifest,
// files, disabled?}}. The binding remembers, in memory and per interpreter key, the manifest that
// key's mirror was known to hold after its last successful execution, and sends only the files
// whose hash differs from that record (everything after a restart or an error). When the runtime
// still misses files it answers 200 {resync: true, missing}; the binding retries once with those
// files added; a second resync is answered as 500 INTERNAL_ERROR.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "sandbox/binding.h"

namespace sandbox {

struct RemoteBindingOptions {
  // http://HOST[:PORT][/PREFIX] (no credentials in it).
  std::string url;
  // Sent as `authorization: Bearer <token>` when not empty (a sandboxd with --api-key).
  std::string bearer_token;
  std::chrono::milliseconds timeout{120'000};
};

// Throws std::invalid_argument when the URL is not http://HOST[:PORT][/PREFIX].
std::unique_ptr<Binding> make_remote_binding(std::string name, RemoteBindingOptions options);

}  // namespace sandbox

#include "protocol/boundary_exceptions.h"

namespace sandbox {
namespace {

constexpr BoundaryException kBoundaryExceptions[] = {
    {"ApiError", "include/sandbox/protocol.h", "its own",
     "as built (a relayed runtime answer: as received)",
     "request validation, routes, the context lifecycle; ApiError::relay() for a runtime's "
     "error answer relayed by a Sandbox"},
    {"WorkspaceError", "include/sandbox/workspace.h", "by errno (`error_kind_for_errno()`)",
     "`<what>`; context {errno, ...}", "workspace paths and files"},
    {"StorageError", "src/storage/storage_error.h", "`kStorageFailure`",
     "`Storage failure: <what>`", "the SQLite and PostgreSQL stores"},
    {"FencedWriteError", "src/storage/lease.h", "`kStorageFailure`", "`Storage failure: <what>`",
     "a write refused because another node took the key"},
    {"LeaseHeldError", "src/storage/lease.h", "`kHeldByAnotherNode`",
     "`Sandbox unavailable on this node: <what>; retry later` (scope sandbox), `Interpreter "
     "key unavailable on this node: <what>; retry later` (scope interpreter)",
     "taking the lease on a key another node holds"},
    {"SnapshotError", "src/snapshot/snapshot_error.h", "`kInternal`",
     "`Stored snapshot is unreadable: <what>`",
     "restoring a stored snapshot whose record, chunks or pages are not valid"},
    {"WasmError", "include/sandbox/wasm/error.h", "`kInternal`", "`Wasm runtime error: <what>`",
     "the Wasm runtime refusing a restore or a call (a stored memory or globals that do not "
     "fit the module)"},
    {"WorkerLostError", "include/sandbox/isolation.h", "`kWorkerLost`", "`<what>`",
     "the worker process running a call died or broke the protocol"},
    {"BindingError", "src/sandbox/binding.h", "`kUpstreamFailed`", "`Binding failed: <what>`",
     "a runtime that cannot be reached or answers something unusable (the Sandbox names the "
     "binding: 502 `Binding '<name>' failed: <what>`)"},
    {"ExecutionLimitError", "include/sandbox/engine.h", "`kUnexpected`",
     "`Engine execution failed`", "a guest's limit: an engine returns it as the outcome"},
    {"GuestTrap", "include/sandbox/embedded.h", "`kUnexpected`", "`Engine execution failed`",
     "a guest's trap: an engine returns it as the outcome"},
    {"CodecError", "include/sandbox/wasmify_codec.h", "`kUnexpected`", "`Engine execution failed`",
     "a wasmify guest's malformed protobuf: the outcome of its call"},
    {"WireError", "src/workers/wire.h", "`kUnexpected`", "`Engine execution failed`",
     "a worker message that does not parse: the server turns it into WorkerLostError"},
    {"ChannelError", "src/workers/channel.h", "`kUnexpected`", "`Engine execution failed`",
     "a broken worker channel: the server turns it into WorkerLostError"},
    {"ChannelTimeout", "src/workers/channel.h", "`kUnexpected`", "`Engine execution failed`",
     "a worker that does not answer: the server turns it into WorkerLostError"},
    {"std::runtime_error", "<stdexcept>", "`kUnexpected`", "`Engine execution failed`",
     "an engine's host side failing (an interpreter that answers outside its memory, zstd)"},
    {"std::logic_error", "<stdexcept>", "`kUnexpected`", "`Engine execution failed`",
     "an invariant of our own broken: a bug"},
    {"std::invalid_argument", "<stdexcept>", "`kUnexpected`", "`Engine execution failed`",
     "a configuration or API misuse: a bug when it reaches a request"},
    {"std::out_of_range", "<stdexcept>", "`kUnexpected`", "`Engine execution failed`",
     "a lookup of our own that missed: a bug"},
    {"std::system_error", "<system_error>", "`kUnexpected`", "`Engine execution failed`",
     "a system call failing (fork, socketpair, getrandom)"},
    {"std::bad_alloc", "<new>", "`kUnexpected`", "`Engine execution failed`",
     "memory or a memory mapping that could not be had"},
};

}  // namespace

std::span<const BoundaryException> boundary_exceptions() { return kBoundaryExceptions; }

}  // namespace sandbox

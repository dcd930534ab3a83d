// Every exception type the code throws, through the one boundary mapping (error_response_for(),
// docs/errors.md#exceptions-at-the-boundaries): the status, the code and the message each answers
// with. The table of protocol/boundary_exceptions.h (what docs/errors.md lists) and this one must
// name the same types.
#include <functional>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>

#include <gtest/gtest.h>

#include <sandbox/clock.h>
#include <sandbox/embedded.h>
#include <sandbox/engine.h>
#include <sandbox/isolation.h>
#include <sandbox/protocol.h>
#include <sandbox/wasm.h>
#include <sandbox/wasmify_codec.h>
#include <sandbox/workspace.h>

#include "protocol/boundary_exceptions.h"
#include "sandbox/binding.h"
#include "snapshot/snapshot_error.h"
#include "storage/lease.h"
#include "storage/storage_error.h"
#include "workers/channel.h"
#include "workers/wire.h"

namespace sandbox {
namespace {

constexpr std::int64_t kNow = 1'700'000'000'123;

struct Case {
  std::string name;  // a row of boundary_exceptions(), or a variant of one ("LeaseHeldError/x")
  std::function<void()> raise;
  ErrorKind kind;
  std::string message;
};

ErrorResponse upstream_answer() {
  ErrorResponse e;
  e.code = ErrorCode::kValidationFailed;
  e.message = "teapot";
  e.http_status = 418;
  e.timestamp = "2026-01-02T03:04:05.006Z";
  return e;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> kCases = {
      {"ApiError",
       [] { throw ApiError(ErrorKind::kContextNotFound, "Code context 'c' not found"); },
       ErrorKind::kContextNotFound, "Code context 'c' not found"},
      {"ApiError/relay", [] { throw ApiError::relay(upstream_answer()); }, ErrorKind::kBadRequest,
       "teapot"},
      {"WorkspaceError", [] { throw WorkspaceError(Errno::kENOENT, "No such file: /workspace/a"); },
       ErrorKind::kFileNotFound, "No such file: /workspace/a"},
      {"WorkspaceError/ENOSPC", [] { throw WorkspaceError(Errno::kENOSPC, "Workspace full"); },
       ErrorKind::kWorkspaceFull, "Workspace full"},
      {"StorageError", [] { throw StorageError("database is locked"); }, ErrorKind::kStorageFailure,
       "Storage failure: database is locked"},
      {"FencedWriteError", [] { throw FencedWriteError("write to sandbox 's' is fenced"); },
       ErrorKind::kStorageFailure, "Storage failure: write to sandbox 's' is fenced"},
      {"LeaseHeldError",
       [] { throw LeaseHeldError("sandbox 's' is owned by node 'b'", "b", 10, "sandbox"); },
       ErrorKind::kHeldByAnotherNode,
       "Sandbox unavailable on this node: sandbox 's' is owned by node 'b'; retry later"},
      {"LeaseHeldError/interpreter",
       [] { throw LeaseHeldError("interpreter 'k' is owned by node 'b'", "b", 10, "interpreter"); },
       ErrorKind::kHeldByAnotherNode,
       "Interpreter key unavailable on this node: interpreter 'k' is owned by node 'b'; retry "
       "later"},
      {"LeaseHeldError/unscoped", [] { throw LeaseHeldError("held", "b", 10); },
       ErrorKind::kHeldByAnotherNode, "Unavailable on this node: held; retry later"},
      {"SnapshotError", [] { throw SnapshotError("chunk is not a zstd frame"); },
       ErrorKind::kInternal, "Stored snapshot is unreadable: chunk is not a zstd frame"},
      {"WasmError", [] { throw wasm::WasmError("snapshot memory holds 3 bytes"); },
       ErrorKind::kInternal, "Wasm runtime error: snapshot memory holds 3 bytes"},
      {"WorkerLostError", [] { throw WorkerLostError("The worker process is gone (killed)"); },
       ErrorKind::kWorkerLost, "The worker process is gone (killed)"},
      {"BindingError", [] { throw BindingError("connection refused"); }, ErrorKind::kUpstreamFailed,
       "Binding failed: connection refused"},
      {"ExecutionLimitError", [] { throw ExecutionLimitError("Execution fuel exhausted"); },
       ErrorKind::kUnexpected, "Engine execution failed"},
      {"GuestTrap", [] { throw GuestTrap(wasm::Trap{}, "unreachable executed"); },
       ErrorKind::kUnexpected, "Engine execution failed"},
      {"CodecError",
       [] {
         throw wasmify::CodecError(wasmify::CodecErrorKind::kTruncated, 3, "Truncated protobuf");
       },
       ErrorKind::kUnexpected, "Engine execution failed"},
      {"WireError", [] { throw workers::WireError("worker message cut short"); },
       ErrorKind::kUnexpected, "Engine execution failed"},
      {"ChannelError", [] { throw workers::ChannelError("channel closed"); },
       ErrorKind::kUnexpected, "Engine execution failed"},
      {"ChannelTimeout", [] { throw workers::ChannelTimeout("no frame before the deadline"); },
       ErrorKind::kUnexpected, "Engine execution failed"},
      {"std::runtime_error", [] { throw std::runtime_error("zstd compression failed"); },
       ErrorKind::kUnexpected, "Engine execution failed"},
      {"std::logic_error", [] { throw std::logic_error("execute() on an invalid session"); },
       ErrorKind::kUnexpected, "Engine execution failed"},
      {"std::invalid_argument", [] { throw std::invalid_argument("engine.run must be set"); },
       ErrorKind::kUnexpected, "Engine execution failed"},
      {"std::out_of_range", [] { throw std::out_of_range("no project template x"); },
       ErrorKind::kUnexpected, "Engine execution failed"},
      {"std::system_error",
       [] { throw std::system_error(EAGAIN, std::generic_category(), "fork the zygote"); },
       ErrorKind::kUnexpected, "Engine execution failed"},
      {"std::bad_alloc", [] { throw std::bad_alloc(); }, ErrorKind::kUnexpected,
       "Engine execution failed"},
  };
  return kCases;
}

std::string type_of(const std::string& name) { return name.substr(0, name.find('/')); }

TEST(ExceptionMapping, EveryTypeAnswersWithItsKindsStatusCodeAndMessage) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    ErrorResponse answer;
    bool thrown = false;
    try {
      c.raise();
    } catch (const std::exception& e) {
      thrown = true;
      answer = error_response_for(e, kNow);
    }
    ASSERT_TRUE(thrown);
    if (c.name == "ApiError/relay") {
      // A relayed answer keeps the runtime's pair, which no kind has (418).
      EXPECT_EQ(answer.http_status, 418);
      EXPECT_EQ(answer.code, ErrorCode::kValidationFailed);
      EXPECT_EQ(answer.timestamp, "2026-01-02T03:04:05.006Z");
    } else {
      EXPECT_EQ(answer.http_status, error_kind_status(c.kind));
      EXPECT_EQ(answer.code, error_kind_code(c.kind));
      EXPECT_EQ(answer.timestamp, iso8601_ms(kNow));
    }
    // A client reads the pair back as the first kind that has it (kStorageFailure as kInternal,
    // kHeldByAnotherNode as kOverloaded, kUnexpected as kUpstreamFailed: docs/errors.md).
    EXPECT_EQ(error_kind_of(answer),
              error_kind_for(error_kind_code(c.kind), error_kind_status(c.kind)));
    EXPECT_EQ(answer.message, c.message);
    // The answer is an envelope a client parses back to the same kind.
    const auto back = error_response_from_json(to_json(answer));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->http_status, answer.http_status);
    EXPECT_EQ(back->message, answer.message);
  }
}

// The errno mapping adds {errno} and the error's details to the context.
TEST(ExceptionMapping, AWorkspaceErrorCarriesItsErrnoAndDetails) {
  const ErrorResponse e =
      error_response_for(WorkspaceError(Errno::kEFBIG, "File exceeds 1048576 bytes",
                                        {{"maxSize", 1048576}, {"actualSize", 2000000}}),
                         kNow);
  EXPECT_EQ(e.http_status, 413);
  EXPECT_EQ(e.code, ErrorCode::kFileTooLarge);
  EXPECT_EQ(e.context.at("errno"), "EFBIG");
  EXPECT_EQ(e.context.at("maxSize"), 1048576);
}

// Retryable exactly where docs/errors.md says: storage failures (the server side knows them
// apart), a held lease and a lost worker; a corrupt snapshot is not (the same row fails again).
TEST(ExceptionMapping, OnlyTheTransientKindsAreRetryable) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const bool transient = c.kind == ErrorKind::kStorageFailure ||
                           c.kind == ErrorKind::kHeldByAnotherNode ||
                           c.kind == ErrorKind::kWorkerLost;
    EXPECT_EQ(error_kind_retryable(c.kind), transient);
  }
}

TEST(ExceptionMapping, TheDocumentedTableAndTheseCasesNameTheSameTypes) {
  std::set<std::string> documented;
  for (const BoundaryException& e : boundary_exceptions()) documented.emplace(e.type);
  std::set<std::string> tested;
  for (const Case& c : cases()) tested.insert(type_of(c.name));
  EXPECT_EQ(documented, tested);
  EXPECT_EQ(documented.size(), boundary_exceptions().size()) << "a type is listed twice";
}

}  // namespace
}  // namespace sandbox

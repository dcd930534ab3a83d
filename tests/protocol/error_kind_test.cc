#include <set>

#include <gtest/gtest.h>

#include <sandbox/errors.h>
#include <sandbox/protocol.h>

#include "storage/lease.h"
#include "storage/storage_error.h"

namespace sandbox {
namespace {

TEST(ErrorKind, EveryKindHasOneRowWithAUniqueName) {
  std::set<std::string_view> names;
  std::size_t index = 0;
  for (const ErrorKindInfo& k : error_kinds()) {
    EXPECT_EQ(static_cast<std::size_t>(k.kind), index++) << k.name;
    EXPECT_TRUE(names.insert(k.name).second) << k.name;
    EXPECT_FALSE(k.meaning.empty()) << k.name;
    EXPECT_EQ(&error_kind_info(k.kind), &k);
  }
  EXPECT_EQ(names.size(), static_cast<std::size_t>(ErrorKind::kUnreachable) + 1);
}

TEST(ErrorKind, AnApiErrorOfAKindCarriesTheTablesCodeAndStatus) {
  for (const ErrorKindInfo& k : error_kinds()) {
    const ApiError e(k.kind, "m");
    EXPECT_EQ(e.kind(), k.kind) << k.name;
    EXPECT_EQ(e.code(), k.code) << k.name;
    EXPECT_EQ(e.status(), k.http_status) << k.name;
    EXPECT_EQ(e.retryable(), k.retryable) << k.name;
    const ErrorResponse r = e.to_response(0);
    EXPECT_EQ(r.http_status, k.http_status) << k.name;
    EXPECT_EQ(r.code, k.code) << k.name;
  }
}

TEST(ErrorKind, AReceivedPairMapsBackToAKindWithTheSameCodeAndStatus) {
  for (const ErrorKindInfo& k : error_kinds()) {
    const ErrorKind back = error_kind_for(k.code, k.http_status);
    EXPECT_EQ(error_kind_code(back), k.code) << k.name;
    EXPECT_EQ(error_kind_status(back), k.http_status) << k.name;
  }
  EXPECT_EQ(error_kind_for(ErrorCode::kValidationFailed, 400), ErrorKind::kBadRequest);
  EXPECT_EQ(error_kind_for(ErrorCode::kValidationFailed, 413), ErrorKind::kRequestTooLarge);
  EXPECT_EQ(error_kind_for(ErrorCode::kInternalError, 429), ErrorKind::kTooManyRequests);
  EXPECT_EQ(error_kind_for(ErrorCode::kInternalError, 0), ErrorKind::kUnreachable);
  EXPECT_EQ(error_kind_for(ErrorCode::kNoSpace, 503), ErrorKind::kCapacityReached);
  EXPECT_EQ(error_kind_for(ErrorCode::kNoSpace, 500), ErrorKind::kWorkspaceFull);
}

TEST(ErrorKind, OnlyRefusalsThatChangedNothingAreRetryable) {
  EXPECT_TRUE(error_kind_retryable(error_kind_for(ErrorCode::kInternalError, 429)));
  EXPECT_TRUE(error_kind_retryable(error_kind_for(ErrorCode::kInternalError, 503)));
  // A client cannot tell a storage failure from another 500: it does not retry on its own.
  EXPECT_FALSE(error_kind_retryable(error_kind_for(ErrorCode::kInternalError, 500)));
  EXPECT_FALSE(error_kind_retryable(error_kind_for(ErrorCode::kInternalError, 502)));
  EXPECT_FALSE(error_kind_retryable(error_kind_for(ErrorCode::kValidationFailed, 400)));
  EXPECT_TRUE(error_kind_retryable(ErrorKind::kStorageFailure));
}

TEST(ErrorKind, AnUnknownPairFallsBackToTheCodeThenToInternal) {
  EXPECT_EQ(error_kind_for(ErrorCode::kFileNotFound, 418), ErrorKind::kFileNotFound);
  EXPECT_EQ(error_kind_for(ErrorCode::kInternalError, 418), ErrorKind::kInternal);
  EXPECT_EQ(error_kind_for(ErrorCode::kValidationFailed, -1), ErrorKind::kBadRequest);
}

ErrorResponse upstream(int status, ErrorCode code) {
  ErrorResponse e;
  e.code = code;
  e.message = "x";
  e.http_status = status;
  return e;
}

TEST(ErrorKind, ARelayedAnswerNamesItsKind) {
  EXPECT_EQ(ApiError::relay(upstream(404, ErrorCode::kValidationFailed)).kind(),
            ErrorKind::kRouteNotFound);
  EXPECT_EQ(ApiError::relay(upstream(503, ErrorCode::kInternalError)).kind(),
            ErrorKind::kOverloaded);
  EXPECT_EQ(ApiError::relay(upstream(503, ErrorCode::kInternalError)).status(), 503);
}

// A relayed answer keeps what the runtime sent, a pair no kind has and the timestamp included.
TEST(ErrorKind, ARelayKeepsTheUpstreamAnswer) {
  ErrorResponse sent = upstream(418, ErrorCode::kValidationFailed);
  sent.context = {{"contextId", "c1"}};
  sent.operation = "file.read";
  sent.timestamp = "2026-01-02T03:04:05.006Z";
  const ErrorResponse back = ApiError::relay(sent).to_response(0);
  EXPECT_EQ(back.http_status, 418);
  EXPECT_EQ(back.code, ErrorCode::kValidationFailed);
  EXPECT_EQ(back.message, "x");
  EXPECT_EQ(back.context, sent.context);
  EXPECT_EQ(back.operation, "file.read");
  EXPECT_EQ(back.timestamp, "2026-01-02T03:04:05.006Z");
  EXPECT_EQ(ApiError::relay(upstream(418, ErrorCode::kValidationFailed)).to_response(0).timestamp,
            "1970-01-01T00:00:00.000Z");
}

TEST(ErrorKind, ErrnoKindsMatchTheErrnoCodes) {
  for (const Errno e :
       {Errno::kENOENT, Errno::kEEXIST, Errno::kEACCES, Errno::kEISDIR, Errno::kENOTDIR,
        Errno::kEFBIG, Errno::kENOSPC, Errno::kENOTEMPTY, Errno::kEINVAL, Errno::kENAMETOOLONG}) {
    const ErrorKind k = error_kind_for_errno(e);
    EXPECT_EQ(error_kind_code(k), error_code_for_errno(e)) << errno_name(e);
    EXPECT_EQ(error_kind_status(k), error_code_status(error_code_for_errno(e))) << errno_name(e);
  }
}

// The regression of issue 13 point 3: sandboxd answered a storage failure 500 "Storage
// failure: ..." and the runtime, through this function, 502 "Engine execution failed".
TEST(ErrorKind, AStorageFailureIs500StorageFailureAtEveryBoundary) {
  const ErrorResponse e = error_response_for(StorageError("database is locked"), 0);
  EXPECT_EQ(e.http_status, 500);
  EXPECT_EQ(e.code, ErrorCode::kInternalError);
  EXPECT_EQ(e.message, "Storage failure: database is locked");
}

TEST(ErrorKind, AHeldLeaseReachingTheGenericMappingIsARetryable503) {
  const ErrorResponse e = error_response_for(LeaseHeldError("held by node-b", "node-b", 10), 0);
  EXPECT_EQ(e.http_status, 503);
  EXPECT_EQ(e.code, ErrorCode::kInternalError);
  EXPECT_EQ(e.message, "Unavailable on this node: held by node-b; retry later");
  EXPECT_TRUE(error_kind_retryable(error_kind_of(e)));
}

}  // namespace
}  // namespace sandbox

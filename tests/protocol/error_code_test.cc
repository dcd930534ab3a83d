#include <set>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <sandbox/protocol.h>

namespace sandbox {
namespace {

// The table of docs/protocol.md#error-codes, restated independently of the X-macro.
const std::vector<std::tuple<ErrorCode, std::string, int>> kSpecTable = {
    {ErrorCode::kFileNotFound, "FILE_NOT_FOUND", 404},
    {ErrorCode::kFileExists, "FILE_EXISTS", 409},
    {ErrorCode::kPermissionDenied, "PERMISSION_DENIED", 403},
    {ErrorCode::kIsDirectory, "IS_DIRECTORY", 400},
    {ErrorCode::kNotDirectory, "NOT_DIRECTORY", 400},
    {ErrorCode::kFileTooLarge, "FILE_TOO_LARGE", 413},
    {ErrorCode::kNoSpace, "NO_SPACE", 500},
    {ErrorCode::kFilesystemError, "FILESYSTEM_ERROR", 500},
    {ErrorCode::kContextNotFound, "CONTEXT_NOT_FOUND", 404},
    {ErrorCode::kValidationFailed, "VALIDATION_FAILED", 400},
    {ErrorCode::kCodeExecutionError, "CODE_EXECUTION_ERROR", 500},
    {ErrorCode::kInternalError, "INTERNAL_ERROR", 500},
    {ErrorCode::kNotSupported, "NOT_SUPPORTED", 403},
};

TEST(ErrorCode, EveryCodeIsMappedAsTheSpecSays) {
  std::set<std::string> names;
  for (const auto& [code, name, status] : kSpecTable) {
    EXPECT_EQ(error_code_name(code), name);
    EXPECT_EQ(error_code_status(code), status) << name;
    EXPECT_EQ(parse_error_code(name), code) << name;
    names.insert(name);
  }
  // The enum has exactly the documented codes: the last enumerator is the 13th.
  EXPECT_EQ(names.size(), 13u);
  EXPECT_EQ(static_cast<int>(ErrorCode::kNotSupported), 12);
  EXPECT_FALSE(parse_error_code("NOPE"));
}

TEST(ErrorCode, ErrnoMapping) {
  EXPECT_EQ(error_code_for_errno(Errno::kENOENT), ErrorCode::kFileNotFound);
  EXPECT_EQ(error_code_for_errno(Errno::kEEXIST), ErrorCode::kFileExists);
  EXPECT_EQ(error_code_for_errno(Errno::kEACCES), ErrorCode::kPermissionDenied);
  EXPECT_EQ(error_code_for_errno(Errno::kEISDIR), ErrorCode::kIsDirectory);
  EXPECT_EQ(error_code_for_errno(Errno::kENOTDIR), ErrorCode::kNotDirectory);
  EXPECT_EQ(error_code_for_errno(Errno::kEFBIG), ErrorCode::kFileTooLarge);
  EXPECT_EQ(error_code_for_errno(Errno::kENOSPC), ErrorCode::kNoSpace);
  EXPECT_EQ(error_code_for_errno(Errno::kENOTEMPTY), ErrorCode::kFilesystemError);
  EXPECT_EQ(error_code_for_errno(Errno::kEINVAL), ErrorCode::kFilesystemError);
  EXPECT_EQ(error_code_for_errno(Errno::kENAMETOOLONG), ErrorCode::kValidationFailed);
}

TEST(ErrorResponse, ATooLargeRequestIsValidationFailed413) {
  const auto e = ApiError(ErrorKind::kRequestTooLarge, "Request too large").to_response(0);
  EXPECT_EQ(e.code, ErrorCode::kValidationFailed);
  EXPECT_EQ(e.http_status, 413);
  const auto json = to_json(e);
  EXPECT_EQ(json.at("code"), "VALIDATION_FAILED");
  EXPECT_EQ(json.at("httpStatus"), 413);
  EXPECT_EQ(json.at("timestamp"), "1970-01-01T00:00:00.000Z");
  EXPECT_TRUE(json.at("context").is_object());
  EXPECT_FALSE(json.contains("operation"));
}

TEST(ErrorResponse, ErrnoResponseCarriesErrnoDetailsAndOperation) {
  const WorkspaceError error(Errno::kEFBIG, "too big",
                             boost::json::object{{"maxSize", 1048576}, {"actualSize", 2000000}});
  const auto e =
      errno_error_response(error, {{"path", "/workspace/x"}, {"operation", "file.write"}}, 0);
  EXPECT_EQ(e.code, ErrorCode::kFileTooLarge);
  EXPECT_EQ(e.http_status, 413);
  EXPECT_EQ(e.context.at("errno"), "EFBIG");
  EXPECT_EQ(e.context.at("maxSize"), 1048576);
  EXPECT_EQ(e.operation, "file.write");
  const auto overridden = errno_error_response(error, {}, 0, ErrorCode::kFilesystemError);
  EXPECT_EQ(overridden.code, ErrorCode::kFilesystemError);
  EXPECT_EQ(overridden.http_status, 500);
}

TEST(ErrorResponse, UnexpectedExceptionsAreInternal502) {
  const auto e = error_response_for(std::runtime_error("boom"), 0);
  EXPECT_EQ(e.code, ErrorCode::kInternalError);
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.message, "Engine execution failed");
}

TEST(ErrorResponse, ParsesWhatItWritesAndDerivesMissingStatus) {
  const auto back =
      error_response_from_json(to_json(ApiError(ErrorKind::kRouteNotFound, "gone").to_response(5)));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->http_status, 404);
  EXPECT_EQ(back->message, "gone");
  const auto derived = error_response_from_json(
      boost::json::object{{"code", "CONTEXT_NOT_FOUND"}, {"message", "x"}});
  ASSERT_TRUE(derived);
  EXPECT_EQ(derived->http_status, 404);
  std::string raw;
  const auto unknown =
      error_response_from_json(boost::json::object{{"code", "WHATEVER"}, {"message", "x"}}, &raw);
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->http_status, 500);
  EXPECT_EQ(raw, "WHATEVER");
  EXPECT_FALSE(error_response_from_json(boost::json::array{}));
}

// Found by fuzz_runtime_requests: DELETE /interpreters/k/contexts/%80 echoed the raw byte into
// the message and context, so the body was not valid JSON for a strict client.
TEST(ErrorResponse, ClientBytesThatAreNotUtf8AreReplacedSoTheBodyIsValidJson) {
  ApiError error(ErrorKind::kContextNotFound, "Context not found: \x80",
                 boost::json::object{{"contextId", "\x80"}, {"nested", {{"path", "a\xff"}}}});
  const std::string body = boost::json::serialize(to_json(error.to_response(0)));
  EXPECT_EQ(body.find('\x80'), std::string::npos);
  EXPECT_EQ(body.find('\xff'), std::string::npos);
  const auto back = error_response_from_json(boost::json::parse(body));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->message, "Context not found: \xEF\xBF\xBD");
  EXPECT_EQ(back->context.at("contextId").as_string(), "\xEF\xBF\xBD");
  EXPECT_EQ(back->context.at("nested").at("path").as_string(), "a\xEF\xBF\xBD");
}

}  // namespace
}  // namespace sandbox

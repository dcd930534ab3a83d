#include "protocol/sandbox_execute_request.h"

#include <gtest/gtest.h>

#include "protocol/decoder_expect.h"

namespace sandbox {
namespace {

using test::expect_refused;

TEST(SandboxExecuteRequest, DecodesEveryField) {
  const SandboxExecuteRequest r = decode_sandbox_execute_request(
      R"({"code":"return 1","envVars":{"A":"1","B":null},"contextId":"c1","binding":"LUA"})");
  EXPECT_EQ(r.code, "return 1");
  EXPECT_EQ(r.env.at("A"), "1");
  EXPECT_FALSE(r.env.at("B").has_value());
  EXPECT_EQ(r.context_id, "c1");
  EXPECT_EQ(r.binding, "LUA");
}

TEST(SandboxExecuteRequest, RefusesEachFieldWithItsMessageInOrder) {
  const auto refused = [](const std::string& body, ErrorKind kind, const std::string& message) {
    expect_refused([&] { static_cast<void>(decode_sandbox_execute_request(body)); }, kind, message);
  };
  refused("[]", ErrorKind::kBadRequest, "Expected an object");
  refused("{", ErrorKind::kBadRequest, "Invalid JSON");
  refused(R"({"cwd":"/x","code":""})", ErrorKind::kBadRequest,
          "cwd is a context property; pass it to createCodeContext");
  refused(R"({"code":1e300})", ErrorKind::kBadRequest, "Non-empty code is required");
  refused(R"({"code":"  "})", ErrorKind::kBadRequest, "Non-empty code is required");
  refused(R"({"code":")" + std::string(kMaxCodeBytes + 1, 'x') + R"("})",
          ErrorKind::kRequestTooLarge, "Code exceeds 64 KiB");
  refused(R"({"code":"x","envVars":[1]})", ErrorKind::kBadRequest, "envVars must be an object");
  refused(R"({"code":"x","envVars":{"A":-1}})", ErrorKind::kBadRequest,
          "envVars values must be strings");
  refused(R"({"code":"x","contextId":""})", ErrorKind::kBadRequest,
          "contextId must be a non-empty string");
  refused(R"({"code":"x","contextId":18446744073709551616})", ErrorKind::kBadRequest,
          "contextId must be a non-empty string");
  refused(R"({"code":"x","binding":false})", ErrorKind::kBadRequest,
          "binding must be a non-empty string");
  refused(R"({"code":"x"})", ErrorKind::kBadRequest, "Pass a context or a binding");
  refused(R"({"code":"x","contextId":null})", ErrorKind::kBadRequest,
          "contextId must be a non-empty string");
}

}  // namespace
}  // namespace sandbox

#include "protocol/context_request.h"

#include <gtest/gtest.h>

#include "protocol/decoder_expect.h"

namespace sandbox {
namespace {

using test::expect_refused;

TEST(ContextRequest, DecodesBindingCwdAndEnv) {
  const ContextRequest r =
      decode_context_request(R"({"binding":"LUA","cwd":"src/../lib","envVars":{"A":"1"}})");
  EXPECT_EQ(r.binding, "LUA");
  EXPECT_EQ(r.cwd, "/workspace/lib");
  EXPECT_EQ(r.env_vars.at("A"), "1");
  EXPECT_EQ(decode_context_request(R"({"binding":"LUA"})").cwd, "/workspace");
}

TEST(ContextRequest, RefusesEachFieldWithItsMessage) {
  const auto refused = [](const std::string& body, const std::string& message) {
    expect_refused([&] { static_cast<void>(decode_context_request(body)); }, ErrorKind::kBadRequest,
                   message);
  };
  refused("1", "Expected an object");
  refused("{}", "binding is required");
  refused(R"({"binding":["LUA"]})", "binding is required");
  refused(R"({"binding":"LUA","cwd":""})", "cwd must be a non-empty string");
  refused(R"({"binding":"LUA","cwd":-1})", "cwd must be a non-empty string");
  refused(R"({"binding":"LUA","envVars":{"A":null}})", "envVars values must be strings");
  refused(R"({"binding":"LUA","envVars":{"1A":"x"}})", "Invalid envVars key: 1A");
}

TEST(ContextRequest, ACwdPastThePathLimitsIsABadRequest) {
  try {
    static_cast<void>(
        decode_context_request(R"({"binding":"LUA","cwd":")" + std::string(5000, 'a') + R"("})"));
    FAIL() << "a 5000-byte cwd was accepted";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadRequest);
  }
}

}  // namespace
}  // namespace sandbox

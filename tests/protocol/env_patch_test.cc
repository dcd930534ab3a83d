#include "protocol/env_patch.h"

#include <gtest/gtest.h>

#include <sandbox/protocol.h>

#include "protocol/decoder_expect.h"

namespace sandbox {
namespace {

using test::expect_refused;

TEST(EnvRequest, DecodesSetsAndUnsets) {
  const EnvPatch p = decode_env_request(R"({"envVars":{"A":"1","B":null}})");
  EXPECT_EQ(p.at("A"), "1");
  EXPECT_FALSE(p.at("B").has_value());
}

TEST(EnvRequest, RefusesEachFieldWithItsMessage) {
  const auto refused = [](const std::string& body, const std::string& message) {
    expect_refused([&] { static_cast<void>(decode_env_request(body)); }, ErrorKind::kBadRequest,
                   message);
  };
  refused("", "Invalid JSON");
  refused("{}", "envVars is required");
  refused(R"({"envVars":null})", "envVars is required");
  refused(R"({"envVars":"A=1"})", "envVars must be an object");
  refused(R"({"envVars":{"A":1e400}})", "envVars values must be strings");
  refused(R"({"envVars":{"A":true}})", "envVars values must be strings");
  refused(R"({"envVars":{"A-B":"x"}})", "Invalid envVars key: A-B");
  refused(R"({"envVars":{"A":"x\u0000y"}})", "envVars value of 'A' contains a NUL character");
}

TEST(EnvRequest, MoreThanKMaxEnvVarsIsRefusedNamingTheLimit) {
  boost::json::object env;
  for (std::size_t i = 0; i <= kMaxEnvVars; ++i) env["V" + std::to_string(i)] = "x";
  try {
    static_cast<void>(parse_env_patch(env, true));
    FAIL() << "accepted " << env.size() << " env vars";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadRequest);
    EXPECT_NE(std::string(e.what()).find(std::to_string(kMaxEnvVars)), std::string::npos);
  }
}

}  // namespace
}  // namespace sandbox

#include "protocol/interpreter_execute_request.h"

#include <gtest/gtest.h>

#include "protocol/decoder_expect.h"

namespace sandbox {
namespace {

using test::expect_refused;

TEST(InterpreterExecuteRequest, DecodesArgsAndFiles) {
  const HttpExecuteArgs r = parse_http_execute_args(
      R"({"contextId":"c1","code":"x","envVars":{"A":"1"},"workspace":{"dirs":["/workspace"],)"
      R"("manifest":{"/workspace/a":"h"},"disabled":true,)"
      R"("files":[{"path":"/workspace/a","data":"aGk=","updatedAt":1700000000000}]}})");
  EXPECT_EQ(r.args.context_id, "c1");
  EXPECT_EQ(r.args.code, "x");
  EXPECT_EQ(r.args.env_vars.at("A"), "1");
  EXPECT_EQ(r.args.workspace.dirs, std::vector<std::string>{"/workspace"});
  EXPECT_EQ(r.args.workspace.manifest.at("/workspace/a"), "h");
  EXPECT_TRUE(r.args.workspace.disabled);
  ASSERT_EQ(r.files.size(), 1u);
  EXPECT_EQ(r.files[0].data, (std::vector<std::uint8_t>{'h', 'i'}));
  EXPECT_EQ(r.files[0].updated_at, 1700000000000);
}

TEST(InterpreterExecuteRequest, RefusesEachFieldWithItsMessage) {
  const auto refused = [](const std::string& body, const std::string& message) {
    expect_refused([&] { static_cast<void>(parse_http_execute_args(body)); },
                   ErrorKind::kBadRequest, message);
  };
  refused("[]", "Expected an object");
  refused(R"({"code":7})", "Non-empty code is required");
  refused(R"({"code":"x","envVars":{"A":1}})", "envVars values must be strings");
  refused(R"({"code":"x","contextId":""})", "contextId must be a non-empty string");
  refused(R"({"code":"x","contextId":1.5})", "contextId must be a non-empty string");
  refused(R"({"code":"x","contextId":"c"})", "workspace is required");
  refused(R"({"code":"x","contextId":"c","workspace":{"dirs":[1],"manifest":{}}})",
          "workspace.dirs must be an array of strings");
  refused(R"({"code":"x","contextId":"c","workspace":{"dirs":[],"manifest":[]}})",
          "workspace.manifest must be an object");
  refused(R"({"code":"x","contextId":"c","workspace":{"dirs":[],"manifest":{"/a":1}}})",
          "workspace.manifest must map string paths to string hashes");
  refused(R"({"code":"x","contextId":"c","workspace":{"dirs":[],"manifest":{},"disabled":1}})",
          "workspace.disabled must be a boolean");
  const std::string shape = "workspace.files must be an array of {path, data, updatedAt}";
  const auto with_files = [](const std::string& files) {
    return R"({"code":"x","contextId":"c","workspace":{"dirs":[],"manifest":{},"files":)" + files +
           "}}";
  };
  refused(with_files("{}"), shape);
  refused(with_files(R"([{"path":"/a","data":"","updatedAt":"1"}])"), shape);
  refused(with_files(R"([{"path":"/a","updatedAt":1}])"), shape);
  for (const char* hostile : {"1e300", "-1e400", "1.5", "18446744073709551615"}) {
    refused(with_files(R"([{"path":"/a","data":"","updatedAt":)" + std::string(hostile) + "}]"),
            "workspace.files[].updatedAt must be an integer (epoch milliseconds)");
  }
  refused(with_files(R"([{"path":"/a","data":"!!!","updatedAt":1}])"),
          "Invalid base64 content in workspace.files");
}

TEST(InterpreterExecuteRequest, ValidateArgsChecksCodeAndContextId) {
  expect_refused([] { validate_execute_args({"", "x", {}, {}}); }, ErrorKind::kBadRequest,
                 "contextId must be a non-empty string");
  expect_refused([] { validate_execute_args({"c", " ", {}, {}}); }, ErrorKind::kBadRequest,
                 "Non-empty code is required");
  expect_refused([] { validate_execute_args({"c", std::string(kMaxCodeBytes + 1, 'x'), {}, {}}); },
                 ErrorKind::kRequestTooLarge, "Code exceeds 64 KiB");
}

}  // namespace
}  // namespace sandbox

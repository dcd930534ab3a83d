#include "protocol/execute_request.h"

#include <gtest/gtest.h>

#include <sandbox/protocol.h>

namespace sandbox {
namespace {

struct Case {
  std::string name;
  std::string body;
  int status;
  std::string message;
};

// Every rule of docs/protocol.md#stateless-execute that is checked on the body, in order.
class ExecuteValidation : public ::testing::TestWithParam<Case> {};

TEST_P(ExecuteValidation, AnswersTheSpecifiedStatusAndMessage) {
  const Case& c = GetParam();
  try {
    static_cast<void>(parse_execute_request(c.body, "python"));
    FAIL() << "expected ApiError for " << c.name;
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status(), c.status) << c.name;
    EXPECT_EQ(std::string(e.what()), c.message) << c.name;
    EXPECT_EQ(e.code(), ErrorCode::kValidationFailed) << c.name;
  }
}

const std::string kLongCode = "\"" + std::string(65537, 'x') + "\"";

INSTANTIATE_TEST_SUITE_P(
    Rules, ExecuteValidation,
    ::testing::Values(
        Case{"no_body", "", 400, "JSON body required"},
        Case{"invalid_json", "{code:", 400, "Invalid JSON"},
        Case{"array", "[1]", 400, "Expected an object"},
        Case{"null", "null", 400, "Expected an object"},
        Case{"string", "\"x\"", 400, "Expected an object"},
        Case{"input", R"({"code":"1","input":{}})", 400,
             "input is no longer supported; pass data with envVars"},
        Case{"input_wins_over_bad_code", R"({"input":1})", 400,
             "input is no longer supported; pass data with envVars"},
        Case{"language_not_string", R"({"code":"1","language":3})", 400,
             "language must be a string"},
        Case{"language_other", R"({"code":"1","language":"Ruby"})", 400,
             "Unsupported language 'Ruby' on this runtime (python)"},
        Case{"typescript_on_python", R"({"code":"1","language":"ts"})", 400,
             "Unsupported language 'ts' on this runtime (python)"},
        Case{"code_missing", R"({})", 400, "Non-empty code is required"},
        Case{"code_number", R"({"code":1})", 400, "Non-empty code is required"},
        Case{"code_blank", R"({"code":" \n\t "})", 400, "Non-empty code is required"},
        Case{"code_too_long", "{\"code\":" + kLongCode + "}", 413, "Code exceeds 64 KiB"},
        Case{"env_not_object", R"({"code":"1","envVars":[]})", 400, "envVars must be an object"},
        Case{"env_value_number", R"({"code":"1","envVars":{"A":1}})", 400,
             "envVars values must be strings"}),
    [](const auto& info) { return info.param.name; });

TEST(ExecuteRequest, AcceptsAliasesAndFiltersEnvVars) {
  const auto r = parse_execute_request(
      R"J({"code":"print(1)","language":"Python3","envVars":{"A":"1","_b":"2","9x":"3","bad-key":"4","N":null}})J",
      "python");
  EXPECT_EQ(r.code, "print(1)");
  EXPECT_EQ(r.env_vars, (std::map<std::string, std::string>{{"A", "1"}, {"_b", "2"}}));
}

TEST(ExecuteRequest, TypescriptRunsOnJavascript) {
  EXPECT_NO_THROW(
      static_cast<void>(parse_execute_request(R"({"code":"1","language":"ts"})", "javascript")));
  EXPECT_NO_THROW(
      static_cast<void>(parse_execute_request(R"({"code":"1","language":"NODE"})", "javascript")));
  EXPECT_NO_THROW(static_cast<void>(
      parse_execute_request(R"({"code":"1","language":"typescript"})", "javascript")));
}

TEST(ExecuteRequest, CodeAtExactlyTheLimitIsAccepted) {
  const std::string body = "{\"code\":\"" + std::string(65536, 'x') + "\"}";
  EXPECT_EQ(parse_execute_request(body, "calc").code.size(), 65536u);
}

TEST(ExecuteRequest, CodeLimitCountsUtf8Bytes) {
  // 21,846 three-byte characters are 65,538 bytes: over the limit though under 64 Ki chars.
  std::string code;
  for (int i = 0; i < 21846; ++i) code += "\xE2\x82\xAC";
  try {
    static_cast<void>(parse_execute_request("{\"code\":\"" + code + "\"}", "calc"));
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status(), 413);
  }
}

TEST(ContentType, JsonDetection) {
  EXPECT_TRUE(is_json_content_type("application/json"));
  EXPECT_TRUE(is_json_content_type("Application/JSON; charset=utf-8"));
  EXPECT_FALSE(is_json_content_type("text/plain"));
  EXPECT_FALSE(is_json_content_type(""));
}

TEST(Names, EnvKeysAndInterpreterKeys) {
  EXPECT_TRUE(valid_env_key("A_1"));
  EXPECT_TRUE(valid_env_key("_"));
  EXPECT_FALSE(valid_env_key("1A"));
  EXPECT_FALSE(valid_env_key(""));
  EXPECT_FALSE(valid_env_key("A-B"));
  EXPECT_FALSE(valid_env_key("\xC3\xA9"));
  EXPECT_TRUE(valid_interpreter_key("abc.DEF_1-2"));
  EXPECT_TRUE(valid_interpreter_key(std::string(128, 'a')));
  EXPECT_FALSE(valid_interpreter_key(std::string(129, 'a')));
  EXPECT_FALSE(valid_interpreter_key(""));
  EXPECT_FALSE(valid_interpreter_key("a/b"));
  EXPECT_EQ(normalize_language("JS"), "javascript");
  EXPECT_EQ(normalize_language("python3"), "python");
}

}  // namespace
}  // namespace sandbox

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <sandbox/protocol.h>

namespace sandbox {
namespace {

TEST(ExecutionResultJson, HasTheWireShape) {
  ExecutionResult r;
  r.code = "1+1";
  r.language = "calc";
  r.engine = "calc 1.0";
  r.duration_ms = 1.5;
  r.outcome.logs.stdout_lines = {"a", "b"};
  r.outcome.results.push_back(ResultEntry::of_text("2"));
  const auto o = to_json(r);
  EXPECT_EQ(boost::json::serialize(o.at("logs")), R"({"stdout":["a","b"],"stderr":[]})");
  EXPECT_EQ(boost::json::serialize(o.at("results")), R"([{"text":"2"}])");
  EXPECT_FALSE(o.contains("error"));
  EXPECT_FALSE(o.contains("usage"));
  EXPECT_EQ(o.at("durationMs").as_double(), 1.5);
}

TEST(ExecutionResultJson, RoundTripsErrorsUsageAndJsonResults) {
  ExecutionResult r;
  r.outcome.results.push_back(ResultEntry::of_json(boost::json::parse(R"({"a":[1,2]})")));
  r.outcome.error = ExecutionError{"ValueError", "bad", {"line 1", "line 2"}, 3};
  r.outcome.usage = Usage{10, 100, 65536};
  const auto back = execution_result_from_json(to_json(r));
  ASSERT_EQ(back.outcome.results.size(), 1u);
  EXPECT_EQ(boost::json::serialize(*back.outcome.results[0].json), R"({"a":[1,2]})");
  ASSERT_TRUE(back.outcome.error);
  EXPECT_EQ(back.outcome.error->traceback.size(), 2u);
  EXPECT_EQ(back.outcome.error->line_number, 3);
  ASSERT_TRUE(back.outcome.usage);
  EXPECT_EQ(back.outcome.usage->fuel_consumed, 10u);
}

TEST(ExecutionResultJson, RejectsResponsesWithoutResultsOrLogs) {
  EXPECT_THROW(static_cast<void>(execution_result_from_json(
                   boost::json::object{{"logs", boost::json::object{}}})),
               ApiError);
  EXPECT_THROW(static_cast<void>(execution_result_from_json(
                   boost::json::object{{"results", boost::json::array{}}})),
               ApiError);
}

TEST(Lines, SplitDropsOneTrailingEmptyLine) {
  EXPECT_EQ(split_lines("a\nb\n"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(split_lines("a\n\nb"), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(split_lines("a\n\n"), (std::vector<std::string>{"a", ""}));
  EXPECT_EQ(split_lines(""), (std::vector<std::string>{}));
  EXPECT_EQ(split_lines("x\r\n"), (std::vector<std::string>{"x\r"}));
}

TEST(EngineErrorOutcome, NamesLimitErrorsAndTruncates) {
  const auto limit = engine_error_outcome(ExecutionLimitError("Execution fuel exhausted"));
  EXPECT_EQ(limit.error->name, "ExecutionLimitError");
  EXPECT_TRUE(limit.results.empty());
  const auto other = engine_error_outcome(std::runtime_error(std::string(5000, 'x')));
  EXPECT_EQ(other.error->name, "EngineError");
  EXPECT_EQ(other.error->message.size(), 2048u);
  EXPECT_FALSE(other.usage);
}

}  // namespace
}  // namespace sandbox

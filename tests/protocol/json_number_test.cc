// Issue 12 item 7: JSON numbers from clients, remote runtimes and stored rows are converted to
// integers through protocol/json_number.h, never by a cast that is undefined out of range.
#include "protocol/json_number.h"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <sandbox/protocol.h>

namespace sandbox {
namespace {

boost::json::value parsed(const char* text) { return boost::json::parse(text); }

TEST(CheckedInt64, AcceptsExactIntegersInRangeOnly) {
  EXPECT_EQ(checked_int64(parsed("0")), 0);
  EXPECT_EQ(checked_int64(parsed("-1")), -1);
  EXPECT_EQ(checked_int64(parsed("1700000000000")), 1'700'000'000'000);
  EXPECT_EQ(checked_int64(parsed("9223372036854775807")), INT64_MAX);
  EXPECT_EQ(checked_int64(parsed("-9223372036854775808")), INT64_MIN);
  EXPECT_EQ(checked_int64(parsed("1e3")), 1000);  // an integral double
  EXPECT_EQ(checked_int64(parsed("-0.0")), 0);
  EXPECT_EQ(checked_int64(parsed("9223372036854775808")), std::nullopt);  // 2^63 (uint64)
  EXPECT_EQ(checked_int64(parsed("9.3e18")), std::nullopt);
  EXPECT_EQ(checked_int64(parsed("-9.3e18")), std::nullopt);               // a double below -2^63
  EXPECT_EQ(checked_int64(parsed("18446744073709551616")), std::nullopt);  // 2^64
  EXPECT_EQ(checked_int64(parsed("1e300")), std::nullopt);
  EXPECT_EQ(checked_int64(parsed("1e400")), std::nullopt);   // boost::json: +inf
  EXPECT_EQ(checked_int64(parsed("-1e400")), std::nullopt);  // -inf
  EXPECT_EQ(checked_int64(parsed("1.5")), std::nullopt);
  EXPECT_EQ(checked_int64(parsed("\"1\"")), std::nullopt);
  EXPECT_EQ(checked_int64(parsed("null")), std::nullopt);
  EXPECT_EQ(checked_int64(boost::json::value(std::numeric_limits<double>::quiet_NaN())),
            std::nullopt);
}

TEST(CheckedUint64, RefusesNegativesAndWhatDoesNotFit) {
  EXPECT_EQ(checked_uint64(parsed("0")), 0u);
  EXPECT_EQ(checked_uint64(parsed("18446744073709551615")), UINT64_MAX);
  EXPECT_EQ(checked_uint64(parsed("1.8e19")), 18'000'000'000'000'000'000u);
  EXPECT_EQ(checked_uint64(parsed("-1")), std::nullopt);
  EXPECT_EQ(checked_uint64(parsed("-1.0")), std::nullopt);
  EXPECT_EQ(checked_uint64(parsed("18446744073709551616")), std::nullopt);
  EXPECT_EQ(checked_uint64(parsed("1e400")), std::nullopt);
  EXPECT_EQ(checked_uint64(parsed("0.5")), std::nullopt);
  EXPECT_EQ(checked_integer<std::uint32_t>(parsed("4294967296")), std::nullopt);
  EXPECT_EQ(checked_integer<std::uint32_t>(parsed("4294967295")), UINT32_MAX);
  EXPECT_EQ(checked_integer<int>(parsed("-2147483649")), std::nullopt);
  EXPECT_EQ(checked_integer<int>(parsed("404")), 404);
}

TEST(ErrorResponse, HttpStatusOutOfIntRangeFallsBackToTheCodesStatus) {
  for (const char* status : {"1e300", "1e400", "-1e400", "2147483648", "404.5"}) {
    const auto e = error_response_from_json(parsed(
        (std::string(R"({"code":"FILE_NOT_FOUND","message":"m","httpStatus":)") + status + "}")
            .c_str()));
    ASSERT_TRUE(e) << status;
    EXPECT_EQ(e->http_status, 404) << status;
  }
}

TEST(ExecutionResultJson, UsageCountersOutOfRangeAreAnInvalidResponse) {
  for (const char* n : {"1e300", "1e400", "18446744073709551616", "1.5"}) {
    const auto o =
        parsed((std::string(R"({"results":[],"logs":{"stdout":[],"stderr":[]},)") +
                R"("usage":{"fuelConsumed":)" + n + R"(,"fuelLimit":1,"memoryBytes":1}})")
                   .c_str())
            .as_object();
    try {
      static_cast<void>(execution_result_from_json(o));
      ADD_FAILURE() << n << " was accepted";
    } catch (const ApiError& e) {
      EXPECT_EQ(e.status(), 500);
      EXPECT_NE(std::string(e.what()).find("usage.fuelConsumed"), std::string::npos) << e.what();
    }
  }
  // A negative counter still reads as 0, as before.
  const auto ok = execution_result_from_json(
      parsed(R"({"results":[],"logs":{"stdout":[],"stderr":[]},)"
             R"("usage":{"fuelConsumed":-1,"fuelLimit":1e3,"memoryBytes":2}})")
          .as_object());
  ASSERT_TRUE(ok.outcome.usage);
  EXPECT_EQ(ok.outcome.usage->fuel_consumed, 0u);
  EXPECT_EQ(ok.outcome.usage->fuel_limit, 1000u);
}

TEST(ExecutionResultJson, LineNumberAndDurationOutOfRangeAreAnInvalidResponse) {
  for (const char* field :
       {R"("durationMs":1e400,)", R"("error":{"name":"E","message":"m","lineNumber":1e300},)",
        R"("error":{"name":"E","message":"m","lineNumber":-1e400},)"}) {
    const auto o =
        parsed((std::string("{") + field + R"("results":[],"logs":{"stdout":[],"stderr":[]}})")
                   .c_str())
            .as_object();
    EXPECT_THROW(static_cast<void>(execution_result_from_json(o)), ApiError) << field;
  }
}

TEST(SnapshotInfoJson, NumbersOutOfRangeAreNotASnapshotInfo) {
  for (const char* field : {R"("pages":4294967296)", R"("pages":1e300)", R"("bytes":1e400)",
                            R"("takenAt":9223372036854775808)", R"("storedBytes":0.5)"}) {
    EXPECT_EQ(
        snapshot_info_from_json(parsed((std::string(R"({"build":"b",)") + field + "}").c_str())),
        std::nullopt)
        << field;
  }
  EXPECT_TRUE(snapshot_info_from_json(parsed(R"({"build":"b","pages":3,"takenAt":5})")));
}

}  // namespace
}  // namespace sandbox

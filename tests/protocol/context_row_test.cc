#include "protocol/context_row.h"

#include <stdexcept>
#include <string>

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include "snapshot/snapshot_error.h"

namespace sandbox {
namespace {

ContextRow row_of(const std::string& json) {
  return parse_context_row(boost::json::parse(json).as_object());
}

TEST(ContextRow, RoundTripsThroughItsEncoder) {
  ContextRow row;
  row.id = "c1";
  row.cwd = "/workspace/a";
  row.created_at = "2026-01-01T00:00:00.000Z";
  row.last_used = "2026-01-02T00:00:00.000Z";
  row.executions = 18446744073709551615ULL;
  const ContextRow back = parse_context_row(to_json(row));
  EXPECT_EQ(back.id, row.id);
  EXPECT_EQ(back.cwd, row.cwd);
  EXPECT_EQ(back.created_at, row.created_at);
  EXPECT_EQ(back.last_used, row.last_used);
  EXPECT_EQ(back.executions, row.executions);
  EXPECT_FALSE(back.snapshot);
}

TEST(ContextRow, IdIsTheOnlyRequiredField) {
  for (const std::string row : {"{}", R"({"id":null})", R"({"id":7})", R"({"id":["c"]})"}) {
    EXPECT_THROW(row_of(row), std::invalid_argument) << row;
  }
  const ContextRow r = row_of(R"({"id":"c"})");
  EXPECT_EQ(r.cwd, "/workspace");
  EXPECT_EQ(r.created_at, "");
  EXPECT_EQ(r.last_used, "");
  EXPECT_EQ(r.executions, 0u);
  EXPECT_FALSE(r.snapshot);
}

TEST(ContextRow, StringFieldsOfTheWrongTypeTakeTheirDefaults) {
  const ContextRow r =
      row_of(R"({"id":"c","cwd":1e300,"createdAt":"t0","lastUsed":{"x":1},"other":1})");
  EXPECT_EQ(r.cwd, "/workspace");
  EXPECT_EQ(r.created_at, "t0");
  EXPECT_EQ(r.last_used, "t0");  // lastUsed falls back to createdAt
  EXPECT_EQ(row_of(R"({"id":"c","cwd":""})").cwd, "");
  EXPECT_EQ(row_of(R"({"id":"c","createdAt":-1})").created_at, "");
}

TEST(ContextRow, AnExecutionCountNoUint64HoldsReadsAsZero) {
  for (const std::string e : {"-1", "1e300", "-1e300", "1.5", "18446744073709551616", "\"7\"",
                              "\"NaN\"", "null", "true", "[7]", "{}"}) {
    EXPECT_EQ(row_of(R"({"id":"c","executions":)" + e + "}").executions, 0u) << e;
  }
  EXPECT_EQ(row_of(R"({"id":"c","executions":7})").executions, 7u);
  EXPECT_EQ(row_of(R"({"id":"c","executions":7.0})").executions, 7u);
  EXPECT_EQ(row_of(R"({"id":"c","executions":18446744073709551615})").executions,
            18446744073709551615ULL);
}

TEST(ContextRow, ASnapshotThatIsNotAnObjectReadsAsNone) {
  for (const std::string s : {"null", "1e300", "\"x\"", "[]"}) {
    EXPECT_FALSE(row_of(R"({"id":"c","snapshot":)" + s + "}").snapshot) << s;
  }
}

TEST(ContextRow, AMalformedSnapshotObjectIsRefused) {
  EXPECT_THROW(row_of(R"({"id":"c","snapshot":{}})"), SnapshotError);
  EXPECT_THROW(row_of(R"({"id":"c","snapshot":{"build":"b","handle":"x"}})"), SnapshotError);
}

}  // namespace
}  // namespace sandbox

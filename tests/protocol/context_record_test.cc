#include "protocol/context_record.h"

#include <string>

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

namespace sandbox {
namespace {

ContextRecord record_of(const std::string& json) {
  return ContextRecord::from_json(boost::json::parse(json).as_object());
}

TEST(ContextRecord, RoundTripsThroughItsEncoder) {
  ContextRecord r;
  r.id = "c1";
  r.binding = "LUA";
  r.language = "lua";
  r.engine = "lua-5.4";
  r.cwd = "/workspace/a";
  r.env_vars = {{"A", "1"}};
  r.created_at = "t0";
  r.last_used = "t1";
  r.executions = 18446744073709551615ULL;
  r.snapshot = SnapshotInfo{"b", 3, 196608, 1048576, 1700000000000, true};
  const ContextRecord back = ContextRecord::from_json(r.to_json());
  EXPECT_EQ(back.id, r.id);
  EXPECT_EQ(back.binding, r.binding);
  EXPECT_EQ(back.language, r.language);
  EXPECT_EQ(back.engine, r.engine);
  EXPECT_EQ(back.cwd, r.cwd);
  EXPECT_EQ(back.env_vars, r.env_vars);
  EXPECT_EQ(back.created_at, r.created_at);
  EXPECT_EQ(back.last_used, r.last_used);
  EXPECT_EQ(back.executions, r.executions);
  EXPECT_EQ(back.snapshot, r.snapshot);
  EXPECT_FALSE(r.to_info_json().contains("envVars"));
  EXPECT_EQ(r.to_public_json().size(), 6u);
}

TEST(ContextRecord, AnEmptyRowReadsAsDefaults) {
  const ContextRecord r = record_of("{}");
  EXPECT_EQ(r.id, "");
  EXPECT_EQ(r.binding, "");
  EXPECT_EQ(r.cwd, "/workspace");
  EXPECT_TRUE(r.env_vars.empty());
  EXPECT_EQ(r.executions, 0u);
  EXPECT_FALSE(r.snapshot);
}

TEST(ContextRecord, StringFieldsOfTheWrongTypeReadAsEmpty) {
  const ContextRecord r =
      record_of(R"({"id":1e300,"binding":["LUA"],"language":null,"engine":{},"cwd":-1,)"
                R"("createdAt":true,"lastUsed":7})");
  EXPECT_EQ(r.id, "");
  EXPECT_EQ(r.binding, "");
  EXPECT_EQ(r.language, "");
  EXPECT_EQ(r.engine, "");
  EXPECT_EQ(r.cwd, "/workspace");
  EXPECT_EQ(r.created_at, "");
  EXPECT_EQ(r.last_used, "");
  EXPECT_EQ(record_of(R"({"cwd":""})").cwd, "/workspace");
}

TEST(ContextRecord, AnExecutionCountNoUint64HoldsReadsAsZero) {
  for (const std::string e : {"-1", "1e300", "-1e300", "1.5", "18446744073709551616", "\"7\"",
                              "\"NaN\"", "null", "true", "[7]"}) {
    EXPECT_EQ(record_of(R"({"executions":)" + e + "}").executions, 0u) << e;
  }
  EXPECT_EQ(record_of(R"({"executions":7})").executions, 7u);
}

TEST(ContextRecord, EnvVarsKeepOnlyStringValues) {
  EXPECT_TRUE(record_of(R"({"envVars":["A"]})").env_vars.empty());
  EXPECT_TRUE(record_of(R"({"envVars":"A=1"})").env_vars.empty());
  const ContextRecord r = record_of(R"({"envVars":{"A":"1","B":2,"C":null,"D":1e300}})");
  EXPECT_EQ(r.env_vars, (EnvVars{{"A", "1"}}));
}

TEST(ContextRecord, ASnapshotThatIsNotSnapshotInfoShapedReadsAsNone) {
  for (const std::string s :
       {"null", "1", "\"x\"", "{}", R"({"build":7})",
        R"({"build":"b","pages":4294967296,"bytes":0,"storedBytes":0,"takenAt":0})",
        R"({"build":"b","pages":1.5,"bytes":0,"storedBytes":0,"takenAt":0})",
        R"({"build":"b","pages":1,"bytes":18446744073709551616,"storedBytes":0,"takenAt":0})",
        R"({"build":"b","pages":1,"bytes":0,"storedBytes":1e300,"takenAt":0})",
        R"({"build":"b","pages":1,"bytes":0,"storedBytes":0,"takenAt":1e300})"}) {
    EXPECT_FALSE(record_of(R"({"snapshot":)" + s + "}").snapshot) << s;
  }
  EXPECT_TRUE(
      record_of(R"({"snapshot":{"build":"b","pages":1,"bytes":0,"storedBytes":0,"takenAt":0}})")
          .snapshot);
}

TEST(ContextRecord, SnapshotCountsThatAreMissingNegativeOrNotNumbersReadAsZero) {
  const auto snapshot =
      record_of(R"({"snapshot":{"build":"b","pages":-1,"bytes":"7","storedBytes":null,)"
                R"("stale":"yes"}})")
          .snapshot;
  ASSERT_TRUE(snapshot);
  EXPECT_EQ(*snapshot, (SnapshotInfo{"b", 0, 0, 0, 0, false}));
}

}  // namespace
}  // namespace sandbox

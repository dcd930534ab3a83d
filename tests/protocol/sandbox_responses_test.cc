#include "protocol/sandbox_responses.h"

#include <string>

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include "protocol/context_record.h"
#include "protocol/decoder_expect.h"

namespace sandbox {
namespace {

using test::expect_refused;

boost::json::object parsed(const std::string& json) { return boost::json::parse(json).as_object(); }

const std::string kHostileCounts[] = {"1e300", "1.5", "18446744073709551616", "-1e300"};

TEST(SandboxResponses, ACodeContextRoundTripsThroughTheServersEncoder) {
  ContextRecord record;
  record.id = "c1";
  record.binding = "LUA";
  record.language = "lua";
  record.cwd = "/workspace";
  record.created_at = "t0";
  record.last_used = "t1";
  const CodeContext c = decode_code_context(record.to_public_json());
  EXPECT_EQ(c.id, "c1");
  EXPECT_EQ(c.binding, "LUA");
  EXPECT_EQ(c.language, "lua");
  EXPECT_EQ(c.cwd, "/workspace");
  EXPECT_EQ(c.created_at, "t0");
  EXPECT_EQ(c.last_used, "t1");
  EXPECT_EQ(to_json(c), record.to_public_json());
}

TEST(SandboxResponses, StringsOfTheWrongTypeReadAsEmpty) {
  const CodeContext c = decode_code_context(parsed(R"({"id":1e300,"binding":null,"cwd":["/"]})"));
  EXPECT_EQ(c.id, "");
  EXPECT_EQ(c.binding, "");
  EXPECT_EQ(c.cwd, "");
}

TEST(SandboxResponses, AContextListSkipsEntriesThatAreNotObjects) {
  EXPECT_TRUE(decode_code_context_list(parsed(R"({"contexts":{"id":"c"}})")).empty());
  const auto list = decode_code_context_list(parsed(R"({"contexts":[1,"c",{"id":"c"},null]})"));
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].id, "c");
}

TEST(SandboxResponses, CountsMissingNegativeOrNotNumbersReadAsZero) {
  for (const std::string v : {"-1", "\"7\"", "null", "true", "[1]"}) {
    EXPECT_EQ(response_count(parsed(R"({"size":)" + v + "}"), "size"), 0u) << v;
  }
  EXPECT_EQ(response_count(parsed("{}"), "size"), 0u);
  EXPECT_EQ(response_count(parsed(R"({"size":18446744073709551615})"), "size"),
            18446744073709551615ULL);
}

TEST(SandboxResponses, ACountNoUint64HoldsIsRefused) {
  for (const auto& v : kHostileCounts) {
    expect_refused([&] { response_count(parsed(R"({"size":)" + v + "}"), "size"); },
                   ErrorKind::kInternal, "Invalid sandbox response: size is not an integer");
  }
  expect_refused(
      [&] {
        static_cast<void>(
            decode_read_file_result(parsed(R"({"path":"/workspace/a","size":1e300})")));
      },
      ErrorKind::kInternal, "Invalid sandbox response: size is not an integer");
  expect_refused(
      [&] {
        static_cast<void>(
            decode_list_files_result(parsed(R"({"files":[{"name":"a","size":-1.5}]})")));
      },
      ErrorKind::kInternal, "Invalid sandbox response: size is not an integer");
}

TEST(SandboxResponses, EpochMsOutsideInt64IsRefusedAndNonNumbersAreNone) {
  EXPECT_FALSE(response_epoch_ms(parsed(R"({"expiresAt":"5"})"), "expiresAt"));
  EXPECT_FALSE(response_epoch_ms(parsed("{}"), "expiresAt"));
  EXPECT_EQ(response_epoch_ms(parsed(R"({"expiresAt":-5})"), "expiresAt"), -5);
  for (const std::string v : {"1e300", "9223372036854775808", "0.5"}) {
    expect_refused([&] { response_epoch_ms(parsed(R"({"expiresAt":)" + v + "}"), "expiresAt"); },
                   ErrorKind::kInternal, "Invalid sandbox response: expiresAt is not an integer");
  }
}

TEST(SandboxResponses, DecodesTheFilesResults) {
  const ReadFileResult read = decode_read_file_result(
      parsed(R"({"path":"/workspace/a","content":"aGk=","encoding":"base64","isBinary":1,)"
             R"("mimeType":"text/plain","size":2,"timestamp":"t"})"));
  EXPECT_EQ(read.path, "/workspace/a");
  EXPECT_EQ(read.content, "aGk=");
  EXPECT_EQ(read.encoding, "base64");
  EXPECT_FALSE(read.is_binary);  // only JSON true
  EXPECT_EQ(read.size, 2u);
  const FileOpResult op =
      decode_file_op_result(parsed(R"({"success":true,"path":"/a","newPath":5,"timestamp":"t"})"));
  EXPECT_TRUE(op.success);
  EXPECT_FALSE(op.new_path);
  EXPECT_EQ(decode_file_op_result(parsed(R"({"newPath":"/b"})")).new_path, "/b");
  const ListFilesResult list = decode_list_files_result(
      parsed(R"({"path":"/workspace","files":[7,{"name":"d","type":"directory","size":0}]})"));
  ASSERT_EQ(list.files.size(), 1u);
  EXPECT_TRUE(list.files[0].is_directory());
  EXPECT_TRUE(decode_exists_result(parsed(R"({"exists":true})")));
  EXPECT_FALSE(decode_exists_result(parsed(R"({"exists":"yes"})")));
}

TEST(SandboxResponses, DecodesSandboxInfoTolerantly) {
  const SandboxInfo info = decode_sandbox_info(
      parsed(R"({"id":"s","envVars":{"A":"1","B":2},"contexts":[null,{"id":"c","executions":-1,)"
             R"("snapshot":{"build":"b","pages":3,"stale":true}},{"id":"d","snapshot":5}],)"
             R"("workspace":{"files":2,"bytes":"9"},"fileApi":"no"})"));
  EXPECT_EQ(info.id, "s");
  EXPECT_EQ(info.env_vars, (std::map<std::string, std::string>{{"A", "1"}}));
  ASSERT_EQ(info.contexts.size(), 2u);
  EXPECT_EQ(info.contexts[0].executions, 0u);
  ASSERT_TRUE(info.contexts[0].snapshot);
  EXPECT_EQ(info.contexts[0].snapshot->pages, 3u);
  EXPECT_TRUE(info.contexts[0].snapshot->stale);
  EXPECT_FALSE(info.contexts[1].snapshot);
  EXPECT_EQ(info.workspace_entries, 2u);
  EXPECT_EQ(info.workspace_bytes, 0u);
  EXPECT_TRUE(info.file_api);  // only JSON false turns it off
  EXPECT_FALSE(info.expires_at);
  EXPECT_FALSE(decode_sandbox_info(parsed(R"({"fileApi":false})")).file_api);
  expect_refused(
      [&] {
        static_cast<void>(
            decode_sandbox_info(parsed(R"({"contexts":[{"snapshot":{"takenAt":1e300}}]})")));
      },
      ErrorKind::kInternal, "Invalid sandbox response: takenAt is not an integer");
  expect_refused(
      [&] { static_cast<void>(decode_sandbox_info(parsed(R"({"workspace":{"files":1e300}})"))); },
      ErrorKind::kInternal, "Invalid sandbox response: files is not an integer");
}

TEST(SandboxResponses, DecodesTheExecutionContext) {
  EXPECT_FALSE(decode_execution_context_info(parsed("{}")));
  EXPECT_FALSE(decode_execution_context_info(parsed(R"({"context":"c"})")));
  const auto info = decode_execution_context_info(
      parsed(R"({"context":{"id":"c","cwd":"/workspace","executions":3,"snapshotMs":1.5,)"
             R"("expiresAt":1700000000000}})"));
  ASSERT_TRUE(info);
  EXPECT_EQ(info->id, "c");
  EXPECT_EQ(info->executions, 3u);
  EXPECT_EQ(info->snapshot_ms, 1.5);
  EXPECT_EQ(info->expires_at, 1700000000000);
  // A snapshotMs that is not a finite number is left out (1e400 parses as infinity).
  for (const std::string v : {"1e400", "-1e400", "\"NaN\"", "null"}) {
    const auto c = decode_execution_context_info(parsed(R"({"context":{"snapshotMs":)" + v + "}}"));
    ASSERT_TRUE(c) << v;
    EXPECT_FALSE(c->snapshot_ms) << v;
  }
  expect_refused(
      [&] {
        static_cast<void>(
            decode_execution_context_info(parsed(R"({"context":{"executions":1e300}})")));
      },
      ErrorKind::kInternal, "Invalid sandbox response: executions is not an integer");
  expect_refused(
      [&] {
        static_cast<void>(
            decode_execution_context_info(parsed(R"({"context":{"expiresAt":1e300}})")));
      },
      ErrorKind::kInternal, "Invalid sandbox response: expiresAt is not an integer");
}

TEST(SandboxResponses, DecodesTheLanguageList) {
  EXPECT_TRUE(decode_language_list(parsed(R"({"languages":{}})")).empty());
  const auto list = decode_language_list(
      parsed(R"({"languages":[1,{"id":"lua","binding":"LUA","contexts":1,"available":"no",)"
             R"("limits":{"fuel":10,"memoryBytes":-1}},{"id":"js","remote":true,"available":false,)"
             R"("limits":[1]}]})"));
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].binding, "LUA");
  EXPECT_FALSE(list[0].contexts);
  EXPECT_TRUE(list[0].available);
  ASSERT_TRUE(list[0].limits);
  EXPECT_EQ(list[0].limits->fuel, 10u);
  EXPECT_EQ(list[0].limits->memory_bytes, 0u);
  EXPECT_TRUE(list[1].remote);
  EXPECT_FALSE(list[1].available);
  EXPECT_FALSE(list[1].limits);
  for (const auto& v : kHostileCounts) {
    expect_refused(
        [&] { decode_language_list(parsed(R"({"languages":[{"limits":{"fuel":)" + v + "}}]}")); },
        ErrorKind::kInternal, "Invalid sandbox response: fuel is not an integer");
  }
}

TEST(SandboxResponses, DecodesTheInterpreterProbe) {
  const auto info =
      decode_interpreter_info(parsed(R"({"language":"lua","engine":"lua-5.4","contexts":true})"));
  ASSERT_TRUE(info);
  EXPECT_EQ(info->language, "lua");
  EXPECT_TRUE(info->contexts);
  EXPECT_EQ(info->protocol, 1);
  EXPECT_EQ(decode_interpreter_info(
                parsed(R"({"language":"l","engine":"e","contexts":false,"protocol":7})"))
                ->protocol,
            7);
  for (const std::string bad :
       {R"({"engine":"e","contexts":true})", R"({"language":1,"engine":"e","contexts":true})",
        R"({"language":"l","contexts":true})", R"({"language":"l","engine":"e"})",
        R"({"language":"l","engine":"e","contexts":1})",
        R"({"language":"l","engine":"e","contexts":true,"protocol":1e300})",
        R"({"language":"l","engine":"e","contexts":true,"protocol":1.5})",
        R"({"language":"l","engine":"e","contexts":true,"protocol":4294967296})",
        R"({"language":"l","engine":"e","contexts":true,"protocol":"1"})"}) {
    EXPECT_FALSE(decode_interpreter_info(parsed(bad))) << bad;
  }
}

}  // namespace
}  // namespace sandbox

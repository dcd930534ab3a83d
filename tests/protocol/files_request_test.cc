#include "protocol/files_request.h"

#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "protocol/decoder_expect.h"

namespace sandbox {
namespace {

using test::expect_refused;

TEST(FilesRequest, DecodesEveryField) {
  const FilesRequest r = decode_files_request(
      R"({"op":"move","path":"a","newPath":"b","content":"x","encoding":"base64",)"
      R"("recursive":true,"force":1,"includeHidden":"yes","other":[1]})");
  EXPECT_EQ(r.op, "move");
  EXPECT_EQ(r.path, "a");
  EXPECT_EQ(r.new_path, "b");
  EXPECT_EQ(r.content, "x");
  EXPECT_EQ(r.encoding, Encoding::kBase64);
  EXPECT_TRUE(r.recursive);
  EXPECT_TRUE(r.force);
  EXPECT_TRUE(r.include_hidden);
}

TEST(FilesRequest, AbsentOptionalFieldsTakeDefaults) {
  const FilesRequest r = decode_files_request(R"({"op":"write","path":"a","content":null})");
  EXPECT_FALSE(r.new_path);
  EXPECT_EQ(r.content, "");
  EXPECT_FALSE(r.encoding);
  EXPECT_FALSE(r.recursive || r.force || r.include_hidden);
  // newPath is only read for rename and move.
  EXPECT_FALSE(decode_files_request(R"({"op":"read","path":"a","newPath":7})").new_path);
  EXPECT_EQ(decode_files_request(R"({"op":"read","path":"a","encoding":"utf-8"})").encoding,
            Encoding::kUtf8);
}

TEST(FilesRequest, RefusesEachFieldWithItsMessage) {
  const auto refused = [](const std::string& body, const std::string& message) {
    expect_refused([&] { static_cast<void>(decode_files_request(body)); }, ErrorKind::kBadRequest,
                   message);
  };
  refused("[]", "Expected an object");
  refused("{", "Invalid JSON");
  refused("{}", "Unknown op");
  refused(R"({"op":"READ","path":"a"})", "Unknown op");
  refused(R"({"op":1e300,"path":"a"})", "Unknown op");
  refused(R"({"op":["read"],"path":"a"})", "Unknown op");
  refused(R"({"op":"read"})", "path is required");
  refused(R"({"op":"read","path":""})", "path is required");
  refused(R"({"op":"read","path":-1})", "path is required");
  refused(R"({"op":"rename","path":"a"})", "newPath is required for rename");
  refused(R"({"op":"move","path":"a","newPath":""})", "newPath is required for move");
  refused(R"({"op":"move","path":"a","newPath":{}})", "newPath is required for move");
  refused(R"({"op":"read","path":"a","encoding":"UTF-8"})", "encoding must be utf-8 or base64");
  refused(R"({"op":"read","path":"a","encoding":null})", "encoding must be utf-8 or base64");
  refused(R"({"op":"write","path":"a","content":1e300})", "content must be a string");
  refused(R"({"op":"write","path":"a","content":["x"]})", "content must be a string");
}

TEST(FilesRequest, RulesAreCheckedInOrder) {
  const auto refused = [](const std::string& body, const std::string& message) {
    expect_refused([&] { static_cast<void>(decode_files_request(body)); }, ErrorKind::kBadRequest,
                   message);
  };
  refused(R"({"op":"x","encoding":"bad"})", "Unknown op");
  refused(R"({"op":"move","encoding":"bad"})", "path is required");
  refused(R"({"op":"move","path":"a","encoding":"bad"})", "newPath is required for move");
  refused(R"({"op":"write","path":"a","encoding":"bad","content":1})",
          "encoding must be utf-8 or base64");
}

TEST(FilesRequest, FlagsFollowJavaScriptTruthiness) {
  const auto recursive = [](const std::string& value) {
    return decode_files_request(R"({"op":"list","path":"a","recursive":)" + value + "}").recursive;
  };
  for (const std::string v : {"false", "null", "0", "0.0", "-0.0", "\"\""}) {
    EXPECT_FALSE(recursive(v)) << v;
  }
  for (const std::string v :
       {"true", "1", "-1", "1e300", "18446744073709551615", "\"0\"", "\"false\"", "[]", "{}"}) {
    EXPECT_TRUE(recursive(v)) << v;
  }
  const boost::json::value nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(json_truthy(&nan));
  EXPECT_FALSE(json_truthy(nullptr));
}

}  // namespace
}  // namespace sandbox

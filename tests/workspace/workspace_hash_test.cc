// content_hash against vectors computed independently by make_hash_vectors.mjs (node).
#include <fstream>
#include <sstream>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "workspace/workspace_test_util.h"

namespace sandbox {
namespace {

boost::json::array load_vectors() {
  std::ifstream in(std::string(SANDBOX_WORKSPACE_TEST_DIR) + "/hash_vectors.json");
  std::stringstream text;
  text << in.rdbuf();
  return boost::json::parse(text.str()).as_array();
}

TEST(ContentHash, MatchesNodeVectors) {
  const boost::json::array vectors = load_vectors();
  ASSERT_GE(vectors.size(), 7u);
  for (const auto& v : vectors) {
    const auto& o = v.as_object();
    std::vector<std::uint8_t> bytes;
    if (o.at("kind").as_string() == "text") {
      const auto& s = o.at("input").as_string();
      bytes.assign(s.begin(), s.end());
    } else {
      const auto n = o.at("length").to_number<std::uint64_t>();
      const auto mul = o.at("mul").to_number<std::uint64_t>();
      const auto shift = o.at("shift").to_number<unsigned>();
      const auto add = o.at("add").to_number<std::uint64_t>();
      bytes.resize(n);
      for (std::uint64_t i = 0; i < n; ++i) {
        bytes[i] = static_cast<std::uint8_t>((i * mul + (i >> shift) + add) & 255);
      }
    }
    EXPECT_EQ(content_hash(bytes), std::string(o.at("hash").as_string())) << o.at("name");
  }
}

TEST(ContentHash, ShapeAndSensitivity) {
  const std::string h = content_hash(testing_ws::bytes_of("abc"));
  ASSERT_EQ(h.size(), 16u);
  EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos);
  // The length feeds lane 2: trailing zeros change the hash.
  EXPECT_NE(content_hash(std::vector<std::uint8_t>{0}), content_hash(std::vector<std::uint8_t>{}));
  EXPECT_NE(content_hash(std::vector<std::uint8_t>{0}),
            content_hash(std::vector<std::uint8_t>{0, 0}));
}

}  // namespace
}  // namespace sandbox

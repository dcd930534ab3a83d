#include "base/base64.h"

#include <gtest/gtest.h>

namespace sandbox {
namespace {

std::vector<std::uint8_t> bytes(std::string_view s) { return {s.begin(), s.end()}; }

TEST(Base64, EncodesRfc4648Vectors) {
  EXPECT_EQ(base64_encode(std::string_view("")), "");
  EXPECT_EQ(base64_encode(std::string_view("f")), "Zg==");
  EXPECT_EQ(base64_encode(std::string_view("fo")), "Zm8=");
  EXPECT_EQ(base64_encode(std::string_view("foo")), "Zm9v");
  EXPECT_EQ(base64_encode(std::string_view("foobar")), "Zm9vYmFy");
}

TEST(Base64, DecodesWhatItEncodes) {
  std::vector<std::uint8_t> all(256);
  for (int i = 0; i < 256; ++i) all[i] = static_cast<std::uint8_t>(i);
  EXPECT_EQ(base64_decode(base64_encode(all)), all);
  EXPECT_EQ(base64_decode("Zm9vYg=="), bytes("foob"));
  EXPECT_EQ(base64_decode("Zm9vYg"), bytes("foob"));  // missing padding tolerated
}

TEST(Base64, RejectsInvalidInput) {
  EXPECT_FALSE(base64_decode("Zm9v!"));
  EXPECT_FALSE(base64_decode("Z"));
  EXPECT_FALSE(base64_decode("Zg==Zg"));
  EXPECT_FALSE(base64_decode("Zg==="));
}

}  // namespace
}  // namespace sandbox

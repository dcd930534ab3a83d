#include "base/utf8.h"

#include <gtest/gtest.h>

namespace sandbox {
namespace {

TEST(Utf8, ValidatesWellFormedText) {
  EXPECT_TRUE(is_valid_utf8("hello"));
  EXPECT_TRUE(is_valid_utf8("h\xC3\xA9llo \xF0\x9F\x98\x80"));
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xE2\x82"));          // truncated
}

TEST(Utf8, SanitizeReplacesEachMaximalIllFormedSubsequence) {
  EXPECT_EQ(sanitize_utf8("a\xFF"
                          "b"),
            "a\xEF\xBF\xBD"
            "b");
  // A truncated 3-byte sequence is one maximal subsequence: one replacement character.
  EXPECT_EQ(sanitize_utf8("\xE2\x82"
                          "x"),
            "\xEF\xBF\xBD"
            "x");
  EXPECT_EQ(sanitize_utf8("ok \xC3\xA9"), "ok \xC3\xA9");
}

TEST(Utf8, CountsUtf16Units) {
  EXPECT_EQ(utf16_length("abc"), 3u);
  EXPECT_EQ(utf16_length("\xC3\xA9"), 1u);
  EXPECT_EQ(utf16_length("\xF0\x9F\x98\x80"), 2u);
}

TEST(Utf8, PrefixNeverSplitsACodePoint) {
  EXPECT_EQ(utf8_prefix("h\xC3\xA9llo", 2), "h\xC3\xA9");
  EXPECT_EQ(utf8_prefix("abc", 10), "abc");
}

}  // namespace
}  // namespace sandbox

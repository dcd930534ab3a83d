#include <gtest/gtest.h>

#include <sandbox/clock.h>

namespace sandbox {
namespace {

TEST(Clock, FormatsLikeJavaScriptToIsoString) {
  EXPECT_EQ(iso8601_ms(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(iso8601_ms(1'788'870'896'789), "2026-09-08T12:34:56.789Z");
}

TEST(Clock, ParsesWhatItFormats) {
  std::int64_t ms = 0;
  ASSERT_TRUE(parse_iso8601_ms("2026-09-08T12:34:56.789Z", ms));
  EXPECT_EQ(ms, 1'788'870'896'789);
  ASSERT_TRUE(parse_iso8601_ms("2026-09-08T12:34:56Z", ms));
  EXPECT_EQ(ms, 1'788'870'896'000);
  EXPECT_FALSE(parse_iso8601_ms("yesterday", ms));
  EXPECT_FALSE(parse_iso8601_ms("2026-09-08T12:34:56.789Zjunk", ms));
}

TEST(Clock, ManualClockMovesOnlyWhenTold) {
  ManualClock clock(1000);
  EXPECT_EQ(clock.now_ms(), 1000);
  clock.advance(500);
  EXPECT_EQ(clock.now_ms(), 1500);
}

}  // namespace
}  // namespace sandbox

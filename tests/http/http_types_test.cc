#include <gtest/gtest.h>

#include <sandbox/http.h>

namespace sandbox {
namespace {

HttpRequest with_header(std::string name, std::string value) {
  HttpRequest r;
  r.method = "POST";
  r.target = "/execute?x=1";
  r.headers = {{"Host", "localhost"}, {std::move(name), std::move(value)}};
  return r;
}

TEST(HttpRequest, HeadersAreFoundWhateverTheirCase) {
  const HttpRequest r = with_header("Content-Type", "application/json");
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_EQ(r.header("CONTENT-TYPE"), "application/json");
  EXPECT_EQ(r.header("accept"), std::nullopt);
  EXPECT_EQ(r.path(), "/execute");
}

TEST(HttpRequest, ContentLengthIsAPlainDecimalNumber) {
  EXPECT_EQ(with_header("Content-Length", "0").content_length(), 0u);
  EXPECT_EQ(with_header("content-length", "1048576").content_length(), 1048576u);
  EXPECT_EQ(with_header("content-length", "18446744073709551615").content_length(),
            18446744073709551615ull);
  EXPECT_EQ(HttpRequest{}.content_length(), std::nullopt);
  for (const char* bad : {"", "-1", "+5", " 5", "5 ", "0x10", "12abc", "18446744073709551616"}) {
    EXPECT_EQ(with_header("content-length", bad).content_length(), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace sandbox

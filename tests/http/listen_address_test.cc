// split_listen (src/http/listen_address.h): HOST:PORT as the server binds it, and the errors a
// mistyped --listen gets.
#include "http/listen_address.h"

#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace sandbox {
namespace {

using Address = std::pair<std::string, std::uint16_t>;

// The message split_listen throws for `listen`, or "" when it does not throw.
std::string error_of(const std::string& listen) {
  try {
    split_listen(listen);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(SplitListen, HostAndPort) {
  EXPECT_EQ(split_listen("127.0.0.1:8787"), (Address{"127.0.0.1", 8787}));
  EXPECT_EQ(split_listen("localhost:80"), (Address{"localhost", 80}));
  EXPECT_EQ(split_listen("0.0.0.0:65535"), (Address{"0.0.0.0", 65535}));
}

TEST(SplitListen, PortZeroAsksForAnyFreePort) {
  EXPECT_EQ(split_listen("127.0.0.1:0"), (Address{"127.0.0.1", 0}));
}

TEST(SplitListen, AnEmptyHostIsEveryIpv4Interface) {
  EXPECT_EQ(split_listen(":8080"), (Address{"0.0.0.0", 8080}));
}

TEST(SplitListen, Ipv6InBracketsOrBareSplitsAtTheLastColon) {
  EXPECT_EQ(split_listen("[::1]:8787"), (Address{"::1", 8787}));
  EXPECT_EQ(split_listen("[::]:0"), (Address{"::", 0}));
  EXPECT_EQ(split_listen("::1:8787"), (Address{"::1", 8787}));
}

TEST(SplitListen, WithoutAColonSaysHostPortIsExpected) {
  EXPECT_EQ(error_of("8787"), "listen address must be HOST:PORT: 8787");
  EXPECT_EQ(error_of("localhost"), "listen address must be HOST:PORT: localhost");
  EXPECT_EQ(error_of(""), "listen address must be HOST:PORT: ");
}

TEST(SplitListen, ABadPortNamesTheWholeAddress) {
  for (const std::string bad :
       {"localhost:", "localhost:http", "localhost:80x", "localhost:8.0", "localhost:-1",
        "localhost:65536", "localhost:99999999999999999999", "[::1]", "localhost:0x50"}) {
    EXPECT_EQ(error_of(bad), "invalid port in listen address: " + bad) << bad;
  }
}

}  // namespace
}  // namespace sandbox

// sandboxd's configuration rules: binding specs, lists, loopback detection, refusal to start.
#include "server/sandboxd_config.h"

#include <gtest/gtest.h>

#include "server/request_log.h"

namespace sandbox {
namespace {

TEST(SandboxdConfig, BindingSpecs) {
  auto b = parse_binding_spec("REMOTE=http://10.0.0.5:8080/runtimes/KV/");
  EXPECT_EQ(b.name, "REMOTE");
  EXPECT_EQ(b.url, "http://10.0.0.5:8080/runtimes/KV");
  EXPECT_EQ(b.token, "");
  b = parse_binding_spec("PY=http://tok-en@host:1");
  EXPECT_EQ(b.url, "http://host:1");
  EXPECT_EQ(b.token, "tok-en");
  EXPECT_THROW(static_cast<void>(parse_binding_spec("NOEQUALS")), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(parse_binding_spec("9A=http://h:1")), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(parse_binding_spec("A-B=http://h:1")), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(parse_binding_spec(std::string(65, 'A') + "=http://h:1")),
               std::invalid_argument);
  EXPECT_THROW(static_cast<void>(parse_binding_spec("A=https://h:1")), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(parse_binding_spec("A=http://")), std::invalid_argument);
}

TEST(SandboxdConfig, Lists) {
  EXPECT_EQ(split_list("a, b,,c "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(split_list("").empty());
}

// Issue 12: a host that only starts with "127." is a DNS name, resolvable to any address.
TEST(SandboxdConfig, ADnsNameStartingWith127IsNotLoopback) {
  EXPECT_FALSE(is_loopback_listen("127.evil.example.com:8787"));
  EXPECT_FALSE(is_loopback_listen("127.0.0.1.nip.io:8787"));
  EXPECT_FALSE(is_loopback_listen("127.:8787"));
  EXPECT_FALSE(is_loopback_listen("[::ffff:10.0.0.1]:8787"));
  EXPECT_TRUE(is_loopback_listen("127.255.255.254:8787"));
  EXPECT_TRUE(is_loopback_listen("[::ffff:127.0.0.1]:8787"));
  SandboxdConfig c;
  c.listen = "127.evil.example.com:8787";
  EXPECT_THROW(check_config(c), std::invalid_argument);
}

TEST(SandboxdConfig, MaxSandboxesMustBePositive) {
  SandboxdConfig c;
  EXPECT_EQ(c.max_sandboxes, kMaxSandboxes);
  c.max_sandboxes = 0;
  EXPECT_THROW(check_config(c), std::invalid_argument);
}

TEST(SandboxdConfig, LoopbackAndKeys) {
  EXPECT_TRUE(is_loopback_listen("127.0.0.1:8787"));
  EXPECT_TRUE(is_loopback_listen("127.1.2.3:0"));
  EXPECT_TRUE(is_loopback_listen("localhost:1"));
  EXPECT_TRUE(is_loopback_listen("[::1]:1"));
  EXPECT_FALSE(is_loopback_listen("0.0.0.0:8787"));
  EXPECT_FALSE(is_loopback_listen("[::]:8787"));
  EXPECT_FALSE(is_loopback_listen("10.1.1.1:80"));

  SandboxdConfig c;
  EXPECT_NO_THROW(check_config(c));
  c.listen = "0.0.0.0:8787";
  EXPECT_THROW(check_config(c), std::invalid_argument);
  c.api_keys = {"k"};
  EXPECT_NO_THROW(check_config(c));
  c.api_keys = {""};
  EXPECT_THROW(check_config(c), std::invalid_argument);
  c = SandboxdConfig{};
  c.listen = "8787";
  EXPECT_THROW(check_config(c), std::invalid_argument);
  c = SandboxdConfig{};
  c.bindings = {parse_binding_spec("A=http://h:1"), parse_binding_spec("A=http://h:2")};
  EXPECT_THROW(check_config(c), std::invalid_argument);
}

TEST(SandboxdConfig, RequestLogLine) {
  EXPECT_EQ(format_request_log({"POST", "/sandboxes/a/execute", 200, 12.34, "a"}, 0),
            "1970-01-01T00:00:00.000Z POST /sandboxes/a/execute 200 12.3ms sandbox=a");
  EXPECT_EQ(format_request_log({"GET", "/healthz", 200, 0, ""}, 0),
            "1970-01-01T00:00:00.000Z GET /healthz 200 0.0ms sandbox=-");
}

}  // namespace
}  // namespace sandbox

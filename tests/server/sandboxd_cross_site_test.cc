// Regression tests of issue "cross-site requests drive a key-less server": without API keys,
// sandboxd answers only requests a page on this machine (or a plain client) can make; a web page
// elsewhere can neither write (Origin, and no simple text/plain POST) nor read through DNS
// rebinding (Host). docs/security.md#cross-site-requests.
#include <gtest/gtest.h>

#include "http/site_guard.h"
#include "server/sandboxd_config.h"
#include "server/sandboxd_fixture.h"

namespace sandbox::test {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

const std::string kWrite = R"({"op":"write","path":"note.txt","content":"secret"})";
const std::string kRead = R"({"op":"read","path":"note.txt"})";

class CrossSite : public ::testing::Test {
 protected:
  void start(std::vector<std::string> api_keys = {}, std::vector<std::string> allowed = {}) {
    SandboxdFixtureOptions o;
    o.engines = {"kv"};
    o.db_path = dir_.file("sandboxd.db");
    o.api_keys = std::move(api_keys);
    o.allowed_hosts = std::move(allowed);
    d_ = std::make_unique<InProcessSandboxd>(o);
  }
  // The file as the operator's own client reads it ("" when absent).
  std::string stored_note(const Headers& auth = {}) {
    Headers h = auth;
    h.emplace_back("content-type", "application/json");
    const HttpResponse r = d_->call("POST", "/sandboxes/victim/files", kRead, h);
    if (r.status != 200) return "";
    return std::string(json_of(r).at("content").as_string());
  }

  TempDir dir_;
  std::unique_ptr<InProcessSandboxd> d_;
};

// Hole 1, first half: a page on attacker.example posts a "simple" request (text/plain needs
// no preflight) to the files API. Answered 200 and written before the fix.
TEST_F(CrossSite, ASimpleCrossSiteFilesWriteIsRefused) {
  start();
  const HttpResponse r =
      d_->call("POST", "/sandboxes/victim/files", kWrite,
               {{"content-type", "text/plain"}, {"origin", "http://attacker.example"}});
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(json_of(r).at("code").as_string(), "PERMISSION_DENIED");
  EXPECT_NE(std::string(json_of(r).at("message").as_string()).find("Origin"), std::string::npos);
  // The same without Origin (a browser always sends one cross-site): text/plain is refused too.
  const HttpResponse plain =
      d_->call("POST", "/sandboxes/victim/files", kWrite, {{"content-type", "text/plain"}});
  EXPECT_EQ(plain.status, 415) << plain.body;
  const HttpResponse exec =
      d_->call("POST", "/sandboxes/victim/execute", R"({"code":"incr n","binding":"KV"})",
               {{"content-type", "text/plain"}});
  EXPECT_EQ(exec.status, 415) << exec.body;
  EXPECT_EQ(stored_note(), "");
}

// Hole 1, second half: DNS rebinding. The page's own name now resolves to 127.0.0.1, so the
// browser sends Host: attacker.example and may read the answer. Returned the file before.
TEST_F(CrossSite, ARebindingHostCannotReadAFile) {
  start();
  ASSERT_EQ(d_->call("POST", "/sandboxes/victim/files", kWrite).status, 200);
  ASSERT_EQ(stored_note(), "secret");
  const std::string port = std::to_string(d_->port());
  for (const std::string& host : std::vector<std::string>{
           "attacker.example:" + port, "attacker.example", "127.0.0.1.attacker.example:" + port,
           "localhost.evil", "::1", "127.1", "[::1"}) {
    SCOPED_TRACE(host);
    const HttpResponse r = d_->call("POST", "/sandboxes/victim/files", kRead,
                                    {{"content-type", "application/json"}, {"host", host}});
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_EQ(r.body.find("secret"), std::string::npos);
    EXPECT_EQ(d_->call("GET", "/sandboxes/victim", "", {{"host", host}}).status, 403);
    EXPECT_EQ(d_->call("GET", "/languages", "", {{"host", host}}).status, 403);
    EXPECT_EQ(d_->call("GET", "/", "", {{"host", host}}).status, 403);
  }
  // Load balancers probe /healthz with their own Host; it holds nothing.
  EXPECT_EQ(d_->call("GET", "/healthz", "", {{"host", "lb.internal"}}).status, 200);
}

TEST_F(CrossSite, LoopbackNamesAndOriginsAreAnswered) {
  start();
  const std::string port = std::to_string(d_->port());
  for (const std::string& host : std::vector<std::string>{
           "127.0.0.1:" + port, "localhost:" + port, "LOCALHOST.", "[::1]:" + port, "127.8.9.10"}) {
    SCOPED_TRACE(host);
    EXPECT_EQ(d_->call("GET", "/languages", "", {{"host", host}}).status, 200);
  }
  for (const std::string& origin :
       std::vector<std::string>{"http://127.0.0.1:" + port, "http://localhost:3000",
                                "https://[::1]", "http://LocalHost:" + port}) {
    SCOPED_TRACE(origin);
    EXPECT_EQ(d_->call("POST", "/sandboxes/victim/files", kWrite,
                       {{"content-type", "application/json"}, {"origin", origin}})
                  .status,
              200);
  }
  for (const std::string& origin : std::vector<std::string>{
           "null", "http://attacker.example", "file://", "http://127.0.0.1@evil",
           "http://localhost:80/path", "http://localhost:99999999"}) {
    SCOPED_TRACE(origin);
    EXPECT_EQ(d_->call("GET", "/languages", "", {{"origin", origin}}).status, 403);
  }
}

TEST_F(CrossSite, AllowedHostsAreAnsweredByName) {
  start({}, {"Sandbox.Test"});
  EXPECT_EQ(d_->call("GET", "/languages", "", {{"host", "sandbox.test:8787"}}).status, 200);
  EXPECT_EQ(d_->call("GET", "/languages", "", {{"origin", "http://sandbox.test:8787"}}).status,
            200);
  EXPECT_EQ(d_->call("GET", "/languages", "", {{"host", "other.test"}}).status, 403);
}

// With API keys the key is what protects: a request with a valid key is answered whatever its
// Origin, Host or content type (as the protocol we are compatible with does).
TEST_F(CrossSite, WithApiKeysTheKeyDecides) {
  start({"k1"});
  const Headers auth = {{"authorization", "Bearer k1"}};
  Headers h = auth;
  h.emplace_back("host", "sandbox.example.com");
  h.emplace_back("origin", "https://app.example.com");
  h.emplace_back("content-type", "text/plain");
  EXPECT_EQ(d_->call("POST", "/sandboxes/victim/files", kWrite, h).status, 200);
  EXPECT_EQ(stored_note(auth), "secret");
  EXPECT_EQ(d_->call("GET", "/languages", "", {{"origin", "http://attacker.example"}}).status, 401);
}

TEST(SiteGuard, ParsesHostsStrictly) {
  const SiteGuard guard({"box.internal"});
  EXPECT_TRUE(guard.host_allowed("box.internal"));
  EXPECT_TRUE(guard.host_allowed("BOX.internal.:443"));
  EXPECT_TRUE(guard.host_allowed("127.0.0.1"));
  EXPECT_TRUE(guard.host_allowed("[::1]"));
  EXPECT_FALSE(guard.host_allowed(""));
  EXPECT_FALSE(guard.host_allowed(":80"));
  EXPECT_FALSE(guard.host_allowed("localhost:80:80"));
  EXPECT_FALSE(guard.host_allowed("localhost:abc"));
  EXPECT_FALSE(guard.host_allowed("localhost:123456"));
  EXPECT_FALSE(guard.host_allowed("[::1]x"));
  EXPECT_FALSE(guard.host_allowed("128.0.0.1"));
  EXPECT_FALSE(guard.host_allowed("127.0.0.256"));
  EXPECT_FALSE(guard.host_allowed("127.0.0.1.box.internal.evil"));
  EXPECT_FALSE(guard.host_allowed("sub.box.internal"));
  EXPECT_TRUE(guard.origin_allowed("https://box.internal:8443"));
  EXPECT_FALSE(guard.origin_allowed("ftp://localhost"));
  EXPECT_FALSE(guard.origin_allowed("http://localhost#x"));
  EXPECT_TRUE(is_loopback_origin("http://127.0.0.1:8787"));
  EXPECT_FALSE(is_loopback_origin("http://box.internal"));
}

TEST(SiteGuard, AllowedHostNamesAreValidated) {
  SandboxdConfig config;
  config.allowed_hosts = {"sandbox.example.com", "10.0.0.7"};
  EXPECT_NO_THROW(check_config(config));
  for (const std::string& bad : std::vector<std::string>{
           "http://x.example", "x.example:80", "", "[::1]", "a..b", "-x", std::string(254, 'a')}) {
    SCOPED_TRACE(bad);
    config.allowed_hosts = {bad};
    EXPECT_THROW(check_config(config), std::invalid_argument);
  }
  config.allowed_hosts.assign(kMaxAllowedHosts + 1, "x.example");
  EXPECT_THROW(check_config(config), std::invalid_argument);
}

}  // namespace
}  // namespace sandbox::test

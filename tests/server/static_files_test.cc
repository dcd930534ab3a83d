// The static files sandboxd serves (the Playground at /, docs/sandbox-api.md#playground):
// their headers and revalidation, and their place in the routing: no API key needed for them,
// everything else (unknown paths included) answered as before.
#include "server/static_files.h"

#include <gtest/gtest.h>

#include "playground/playground_files.h"
#include "server/sandboxd_fixture.h"

namespace sandbox::test {
namespace {

std::shared_ptr<const StaticFiles> page_files() {
  static const std::string kPage = "<!doctype html><p>playground</p>";
  static const std::string kScript = "console.log(1)";
  return std::make_shared<const StaticFiles>(std::vector<StaticFile>{
      {"/", "text/html; charset=utf-8", kPage},
      {"/playground.js", "text/javascript; charset=utf-8", kScript},
  });
}

HttpRequest get(std::string target, std::vector<std::pair<std::string, std::string>> headers = {}) {
  return HttpRequest{.method = "GET", .target = std::move(target), .headers = std::move(headers)};
}

TEST(StaticFiles, AnswerWithTypeCspCacheHeadersAndEtag) {
  const auto files = page_files();
  const auto r = files->respond(get("/?from=test"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "<!doctype html><p>playground</p>");
  EXPECT_EQ(r->header("content-type"), "text/html; charset=utf-8");
  EXPECT_EQ(r->header("cache-control"), "no-cache");
  EXPECT_EQ(r->header("content-security-policy"), std::string(kStaticFilesCsp));
  EXPECT_EQ(r->header("x-content-type-options"), "nosniff");
  ASSERT_TRUE(r->header("etag"));
  EXPECT_NE(files->respond(get("/playground.js"))->header("etag"), r->header("etag"));
  EXPECT_FALSE(files->respond(get("/index.html")));
  EXPECT_FALSE(files->contains("/playground.js/"));
}

TEST(StaticFiles, MatchingIfNoneMatchIsA304WithoutBody) {
  const auto files = page_files();
  const std::string etag = *files->respond(get("/"))->header("etag");
  auto r = files->respond(get("/", {{"if-none-match", etag}}));
  EXPECT_EQ(r->status, 304);
  EXPECT_TRUE(r->body.empty());
  r = files->respond(get("/", {{"if-none-match", "\"other\", W/" + etag}}));
  EXPECT_EQ(r->status, 304);
  r = files->respond(get("/", {{"if-none-match", "\"stale\""}}));
  EXPECT_EQ(r->status, 200);
}

class SandboxdStaticFiles : public ::testing::Test {
 protected:
  std::unique_ptr<InProcessSandboxd> start(std::vector<std::string> keys,
                                           std::shared_ptr<const StaticFiles> files) {
    SandboxdFixtureOptions o;
    o.db_path = dir_.file("sandboxd-" + std::to_string(++count_) + ".db");
    o.api_keys = std::move(keys);
    o.static_files = std::move(files);
    return std::make_unique<InProcessSandboxd>(std::move(o));
  }
  TempDir dir_;
  int count_ = 0;
};

TEST_F(SandboxdStaticFiles, ServedWithoutAnApiKeyWhileTheApiStillNeedsOne) {
  const auto d = start({"secret"}, page_files());
  HttpResponse r = d->call("GET", "/");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "<!doctype html><p>playground</p>");
  EXPECT_EQ(d->call("GET", "/playground.js").header("content-type"),
            "text/javascript; charset=utf-8");
  EXPECT_EQ(d->call("GET", "/languages").status, 401);
  EXPECT_EQ(d->call("GET", "/playground.css").status, 401);
  r = d->call("GET", "/languages", "", {{"authorization", "Bearer secret"}});
  EXPECT_EQ(r.status, 200);
}

TEST_F(SandboxdStaticFiles, OtherMethodsAre405AndUnknownPathsStay404) {
  const auto d = start({}, page_files());
  HttpResponse r = d->call("POST", "/", "{}");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.header("allow"), "GET");
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: Method not allowed");
  r = d->call("GET", "/index.html");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: Not found");
}

TEST_F(SandboxdStaticFiles, WithoutStaticFilesTheRootIsUnknown) {
  const auto d = start({}, nullptr);
  const HttpResponse r = d->call("GET", "/");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: Not found");
}

// What a build configured with SANDBOX_BUILD_PLAYGROUND=OFF serves (playground_not_built_files,
// its playground_static_files()): a page at / naming the option, and no Playground files.
TEST_F(SandboxdStaticFiles, ABuildWithoutThePlaygroundSaysSoAtTheRoot) {
  const auto d = start({"secret"}, playground_not_built_files());
  HttpResponse r = d->call("GET", "/");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "text/html; charset=utf-8");
  EXPECT_EQ(r.header("content-security-policy"), std::string(kStaticFilesCsp));
  EXPECT_NE(r.body.find("built without the Playground"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("-DSANDBOX_BUILD_PLAYGROUND=ON"), std::string::npos) << r.body;
  EXPECT_EQ(r.body.find("<script"), std::string::npos) << r.body;
  EXPECT_EQ(d->call("GET", "/playground.js").status, 401);  // not a static file: needs the key
  r = d->call("GET", "/playground.js", "", {{"authorization", "Bearer secret"}});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: Not found");
}

}  // namespace
}  // namespace sandbox::test

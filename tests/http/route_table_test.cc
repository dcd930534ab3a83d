// RouteTable (src/http/route_table.h) and the error answers of src/http/error_answers.h: the
// matching rules every router of the servers relies on.
#include "http/route_table.h"

#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include <sandbox/protocol.h>

#include "http/error_answers.h"

namespace sandbox {
namespace {

enum class R { kRoot, kDelete, kList, kCreate, kOne, kRest, kAny };
using Table = RouteTable<R>;
using Outcome = Table::Match::Outcome;

const Table& table() {
  static const Table t{
      {"GET", "/", R::kRoot},
      {"DELETE", "/", R::kDelete},
      {"GET", "/items", R::kList},
      {"POST", "/items", R::kCreate},
      {"DELETE", "/items/{id}", R::kOne},
      {"*", "/keys/{key}{rest...}", R::kRest},
      {"*", "/any", R::kAny},
  };
  return t;
}

TEST(RouteTable, AMethodAndALiteralPathSelectTheirRoute) {
  const auto m = table().match("POST", "/items");
  ASSERT_EQ(m.outcome, Outcome::kFound);
  EXPECT_EQ(m.id, R::kCreate);
  EXPECT_TRUE(m.params.empty());
  EXPECT_EQ(table().match("GET", "/items").id, R::kList);
  EXPECT_EQ(table().match("DELETE", "/").id, R::kDelete);
}

TEST(RouteTable, AKnownPathWithAnotherMethodListsItsMethodsInTableOrder) {
  const auto m = table().match("PUT", "/items");
  EXPECT_EQ(m.outcome, Outcome::kWrongMethod);
  EXPECT_EQ(m.allow, "GET, POST");
  EXPECT_EQ(m.id, R::kList);  // the first route of the path
  EXPECT_EQ(table().match("POST", "/").allow, "GET, DELETE");
  EXPECT_EQ(table().match("GET", "/items/7").allow, "DELETE");
}

TEST(RouteTable, AnUnknownPathIsNotFound) {
  for (const char* path :
       {"", "/item", "/items/", "/items/7/x", "/itemsx", "/keys/", "/keys/k", "/any/", "//items"}) {
    SCOPED_TRACE(path);
    const auto m = table().match("GET", path);
    EXPECT_EQ(m.outcome, Outcome::kNotFound);
    EXPECT_TRUE(m.allow.empty());
  }
}

TEST(RouteTable, AParameterIsOneNonEmptySegmentOfRawText) {
  const auto m = table().match("DELETE", "/items/a%2Fb");
  ASSERT_TRUE(m.found());
  EXPECT_EQ(m.param(0), "a%2Fb");  // not decoded
  EXPECT_FALSE(table().match("DELETE", "/items/").found());
  EXPECT_FALSE(table().match("DELETE", "/items/a/b").found());
}

TEST(RouteTable, ARestParameterTakesTheRestOfThePathSlashesIncluded) {
  const auto m = table().match("PATCH", "/keys/k1/contexts/a/b");
  ASSERT_TRUE(m.found());
  EXPECT_EQ(m.id, R::kRest);
  ASSERT_EQ(m.params.size(), 2u);
  EXPECT_EQ(m.param(0), "k1");
  EXPECT_EQ(m.param(1), "/contexts/a/b");
  EXPECT_EQ(table().match("GET", "/keys/k1/").param(1), "/");
  // The segment parameter takes all it may: nothing is left for the rest, which is never empty.
  EXPECT_FALSE(table().match("GET", "/keys/k1").found());
}

// The defect of the first version: parameters were views into the path, and a router that
// matched a temporary (`path.empty() ? "/" : path` makes one) read freed memory: a sandbox's
// DELETE /contexts/{id} looked for a context of a garbled id.
TEST(RouteTable, AMatchOutlivesThePathItWasMadeFrom) {
  const auto m = table().match("DELETE", std::string("/items/") + std::string(64, 'x'));
  ASSERT_TRUE(m.found());
  EXPECT_EQ(m.param(0), std::string(64, 'x'));
}

TEST(RouteTable, TheWildcardMethodMatchesEveryMethod) {
  for (const char* method : {"GET", "POST", "DELETE", "OPTIONS", "BREW"}) {
    EXPECT_EQ(table().match(method, "/any").id, R::kAny) << method;
  }
}

TEST(RouteTable, TheFirstMatchingRouteWins) {
  const Table t{{"*", "/a/{x}", R::kOne}, {"GET", "/a/b", R::kList}};
  EXPECT_EQ(t.match("GET", "/a/b").id, R::kOne);
}

TEST(RouteTable, MalformedPatternsAreRefusedWhenTheTableIsBuilt) {
  EXPECT_THROW(Table({{"GET", "/a/{x", R::kOne}}), std::invalid_argument);
  EXPECT_THROW(Table({{"GET", "/a/{}", R::kOne}}), std::invalid_argument);
  EXPECT_THROW(Table({{"GET", "/a/{x...}/b", R::kOne}}), std::invalid_argument);
  EXPECT_NO_THROW(Table({{"GET", "/a/{x}/{y...}", R::kOne}}));
}

TEST(ErrorAnswers, AnErrorResponseAnswersWithItsStatusAndJsonBody) {
  const HttpResponse r =
      error_json(ApiError(ErrorKind::kRouteNotFound, "Not found").to_response(1000));
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.header("content-type").value_or(""), "application/json");
  EXPECT_NE(r.body.find("\"Not found\""), std::string::npos) << r.body;
}

TEST(ErrorAnswers, AMethodNotAllowedNamesTheMethodsThePathTakes) {
  const HttpResponse r = method_not_allowed("GET, POST", "Method not allowed", 1000);
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.header("allow").value_or(""), "GET, POST");
  EXPECT_NE(r.body.find("Method not allowed"), std::string::npos) << r.body;
}

}  // namespace
}  // namespace sandbox

// Several real sandboxd processes sharing one PostgreSQL database (docs/several-nodes.md): a
// code context created and run through one node continues through another after the first is
// stopped (its leases released) or killed (its leases run out), and a node refuses (503) a
// sandbox another live node owns.
#include <chrono>
#include <thread>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>
#include <signal.h>

#include "client/http_client.h"
#include "server/sandboxd_process.h"
#include "storage/postgres/pg_test_server.h"
#include "storage/storage_test_util.h"

namespace sandbox::test {
namespace {

using namespace std::chrono_literals;
using testing_storage::PgTestServer;

const std::string kCounter = "n = (n or 0) + 1\nreturn n";

HttpResponse post(const std::string& url, const std::string& path,
                  const boost::json::object& body) {
  HttpClient client(url);
  return client.post_json(path, boost::json::serialize(body));
}

// The first result's text of an execute response, or the whole body when there is none.
std::string result_text(const HttpResponse& r) {
  boost::system::error_code ec;
  const auto v = boost::json::parse(r.body, ec);
  if (ec || !v.is_object()) return "<" + std::to_string(r.status) + " " + r.body + ">";
  const auto* results = v.as_object().if_contains("results");
  if (!results || !results->is_array() || results->as_array().empty()) {
    return "<" + std::to_string(r.status) + " " + r.body + ">";
  }
  const auto& entry = results->as_array()[0].as_object();
  if (const auto* t = entry.if_contains("text")) return std::string(t->as_string());
  return boost::json::serialize(entry);
}

class PostgresSandboxd : public ::testing::Test {
 protected:
  void SetUp() override {
    PgTestServer* server = PgTestServer::get();
    if (!server) GTEST_SKIP() << testing_storage::kNoPostgresMessage;
    db_ = server->create_database();
  }

  // A sandboxd node on the shared database.
  std::unique_ptr<SandboxdProcess> start(const std::string& node, const std::string& ttl_ms) {
    auto d = std::make_unique<SandboxdProcess>(
        dir_.file(node), std::vector<std::string>{"--engines", "lua", "--database", db_->conninfo(),
                                                  "--node-id", node, "--lease-ttl-ms", ttl_ms});
    EXPECT_TRUE(d->started()) << d->process().stderr_text();
    return d;
  }

  testing_storage::TempDir dir_;
  std::unique_ptr<PgTestServer::Database> db_;
};

TEST_F(PostgresSandboxd, AContextContinuesOnAnotherNodeAfterTheFirstStops) {
  auto first = start("node-a", "30000");
  auto second = start("node-b", "30000");
  ASSERT_TRUE(first->started() && second->started());
  EXPECT_NE(first->process().stdout_text().find("data: postgresql"), std::string::npos)
      << first->process().stdout_text();

  HttpResponse r =
      post(first->url(), "/sandboxes/demo/execute", {{"code", kCounter}, {"binding", "LUA"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(result_text(r), "1");
  const std::string context_id(boost::json::parse(r.body).at("context").at("id").as_string());
  r = post(first->url(), "/sandboxes/demo/execute",
           {{"code", kCounter}, {"contextId", context_id}});
  EXPECT_EQ(result_text(r), "2");
  r = post(first->url(), "/sandboxes/demo/files",
           {{"op", "write"}, {"path", "/workspace/note.txt"}, {"content", "from node-a"}});
  ASSERT_EQ(r.status, 200) << r.body;

  // While node-a owns the sandbox, node-b refuses it and changes nothing.
  r = post(second->url(), "/sandboxes/demo/execute",
           {{"code", kCounter}, {"contextId", context_id}});
  EXPECT_EQ(r.status, 503) << r.body;
  EXPECT_NE(r.body.find("node-a"), std::string::npos) << r.body;
  // Another sandbox is free to land on node-b.
  r = post(second->url(), "/sandboxes/other/execute", {{"code", kCounter}, {"binding", "LUA"}});
  EXPECT_EQ(result_text(r), "1");

  // node-a stops (SIGTERM): it releases its leases, so node-b takes over at once and the context
  // continues from node-a's snapshot, with node-a's files.
  EXPECT_EQ(first->stop(), 0) << first->process().stderr_text();
  r = post(second->url(), "/sandboxes/demo/execute",
           {{"code", kCounter}, {"contextId", context_id}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(result_text(r), "3");
  r = post(second->url(), "/sandboxes/demo/files", {{"op", "read"}, {"path", "note.txt"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(boost::json::parse(r.body).at("content").as_string(), "from node-a");
}

TEST_F(PostgresSandboxd, AKilledNodesSandboxesMoveWhenItsLeasesRunOut) {
  constexpr auto kTtl = 3000ms;
  auto first = start("node-a", std::to_string(kTtl.count()));
  ASSERT_TRUE(first->started());
  // node-a takes its lease during this request, so the lease runs out no sooner than kTtl after
  // `leased`, and perhaps well before kTtl after the kill: under ASan the lease was once over a
  // second old when node-a was killed (the first execute boots the engine).
  const auto leased = std::chrono::steady_clock::now();
  HttpResponse r =
      post(first->url(), "/sandboxes/demo/execute", {{"code", kCounter}, {"binding", "LUA"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const std::string context_id(boost::json::parse(r.body).at("context").at("id").as_string());
  EXPECT_EQ(result_text(r), "1");

  // node-a dies without releasing anything.
  ::kill(first->process().pid(), SIGKILL);
  first->process().wait_exit();

  auto second = start("node-b", std::to_string(kTtl.count()));
  ASSERT_TRUE(second->started());
  // Until node-a's leases run out node-b answers 503; then it takes the sandbox over and the
  // context continues from what node-a committed.
  const auto deadline = leased + 30s;
  for (int attempt = 0;; ++attempt) {
    r = post(second->url(), "/sandboxes/demo/execute",
             {{"code", kCounter}, {"contextId", context_id}});
    const auto answered = std::chrono::steady_clock::now();
    if (attempt == 0 && answered - leased < kTtl - 1s) {
      // node-b looked at the lease before it answered: certainly within node-a's lease (node-b
      // started quickly enough to tell; a second of margin for the database's clock).
      EXPECT_EQ(r.status, 503) << "node-b took a live lease: " << r.body;
    }
    if (r.status != 503 || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(200ms);
  }
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(result_text(r), "2");
  EXPECT_GE(std::chrono::steady_clock::now() - leased, kTtl - 1s);
}

TEST(SandboxdDatabaseOption, BadValuesAreRefusedAtStart) {
  testing_storage::TempDir dir;
  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--database", "mysql://db/x"}, "--database expects a PostgreSQL URL"},
           {{"--lease-ttl-ms", "5"}, "--lease-ttl-ms must be at least 100"},
           {{"--lease-ttl-ms", "86400001"}, "--lease-ttl-ms must be at most 86400000"}}) {
    std::vector<std::string> argv = {SANDBOXD_PATH, "--data", dir.file("data")};
    argv.insert(argv.end(), args.begin(), args.end());
    ChildProcess child(argv, {}, {}, dir.file("stderr.log"));
    EXPECT_EQ(child.wait_exit(), 2);
    EXPECT_NE(child.stderr_text().find(message), std::string::npos) << child.stderr_text();
  }
}

}  // namespace
}  // namespace sandbox::test

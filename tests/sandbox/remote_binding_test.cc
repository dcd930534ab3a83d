// The HTTP transport of a remote binding (docs/protocol.md#resync-handshake): which files it
// pushes, the resync retry, relayed errors, transport failures, and the bearer token.
#include "sandbox/remote_binding.h"

#include <deque>
#include <mutex>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include "base/base64.h"
#include "support/test_server.h"

namespace sandbox {
namespace {

// Answers POSTs from a queue of canned responses and records what it received.
class ScriptedRuntime final : public HttpHandler {
 public:
  HeadDecision on_head(const HttpRequest&) override {
    return HeadDecision{.body_limit = kMaxSyncRequestBytes};
  }
  HttpResponse handle(HttpRequest request) override {
    std::lock_guard lock(mu);
    requests.push_back(request);
    if (answers.empty()) return HttpResponse::text(500, "no answer scripted");
    HttpResponse r = answers.front();
    answers.pop_front();
    return r;
  }
  std::mutex mu;
  std::deque<HttpResponse> answers;
  std::vector<HttpRequest> requests;
};

std::string success_body(const std::string& context_id) {
  return boost::json::serialize(boost::json::object{
      {"code", "x"},
      {"language", "fake"},
      {"engine", "fake 1"},
      {"durationMs", 1},
      {"logs",
       boost::json::object{{"stdout", boost::json::array{}}, {"stderr", boost::json::array{}}}},
      {"results", boost::json::array{boost::json::object{{"text", "ok"}}}},
      {"executionCount", 1},
      {"context",
       boost::json::object{
           {"id", context_id}, {"cwd", "/workspace"}, {"executions", 1}, {"snapshot", nullptr}}},
      {"workspace",
       boost::json::object{{"dirs", boost::json::array{}},
                           {"files", boost::json::array{boost::json::object{
                                         {"path", "/workspace/new.txt"},
                                         {"data", base64_encode(std::string_view("new"))},
                                         {"updatedAt", 5}}}},
                           {"deleted", boost::json::array{}}}}});
}

std::vector<std::string> pushed_paths(const HttpRequest& request) {
  const auto body = boost::json::parse(request.body).as_object();
  std::vector<std::string> out;
  for (const auto& f : body.at("workspace").at("files").as_array()) {
    out.emplace_back(f.at("path").as_string());
  }
  return out;
}

class RemoteBindingTest : public ::testing::Test {
 protected:
  RemoteBindingTest()
      : server_(runtime_),
        binding_(make_remote_binding(
            "R", RemoteBindingOptions{.url = server_.url() + "/prefix", .bearer_token = "tok"})) {
    args_.context_id = "c1";
    args_.code = "x";
    args_.workspace.manifest = {{"/workspace/a.txt", content_hash(bytes("a"))},
                                {"/workspace/b.txt", content_hash(bytes("b"))}};
  }

  static std::vector<std::uint8_t> bytes(std::string_view s) { return {s.begin(), s.end()}; }

  InterpreterExecuteResult execute() {
    return binding_->execute_in_context("key1", args_, [&](const std::vector<std::string>& paths) {
      pulls.push_back(paths);
      std::vector<WorkspaceFileEntry> out;
      for (const auto& p : paths) {
        out.push_back(WorkspaceFileEntry{p, bytes(p == "/workspace/a.txt" ? "a" : "b"), 1});
      }
      return out;
    });
  }

  ScriptedRuntime runtime_;
  test::TestServer server_;
  std::unique_ptr<Binding> binding_;
  InterpreterExecuteArgs args_;
  std::vector<std::vector<std::string>> pulls;
};

TEST_F(RemoteBindingTest, PushesOnlyWhatTheMirrorIsNotKnownToHold) {
  runtime_.answers.push_back(HttpResponse::json(200, success_body("c1")));
  runtime_.answers.push_back(HttpResponse::json(200, success_body("c1")));
  auto r = execute();
  ASSERT_TRUE(std::holds_alternative<InterpreterExecuteResponse>(r));
  const auto& ok = std::get<InterpreterExecuteResponse>(r);
  EXPECT_EQ(ok.files.size(), 1u);
  EXPECT_EQ(std::string(ok.files[0].data.begin(), ok.files[0].data.end()), "new");
  ASSERT_EQ(runtime_.requests.size(), 1u);
  EXPECT_EQ(runtime_.requests[0].target, "/prefix/interpreters/key1/execute");
  EXPECT_EQ(runtime_.requests[0].header("authorization"), "Bearer tok");
  EXPECT_EQ(pushed_paths(runtime_.requests[0]),
            (std::vector<std::string>{"/workspace/a.txt", "/workspace/b.txt"}));

  // b changed since; the guest's new.txt is known to be there now.
  args_.workspace.manifest["/workspace/b.txt"] = content_hash(bytes("B"));
  args_.workspace.manifest["/workspace/new.txt"] = content_hash(bytes("new"));
  execute();
  ASSERT_EQ(runtime_.requests.size(), 2u);
  EXPECT_EQ(pushed_paths(runtime_.requests[1]), (std::vector<std::string>{"/workspace/b.txt"}));
}

TEST_F(RemoteBindingTest, RetriesOnceWithTheMissingFiles) {
  runtime_.answers.push_back(HttpResponse::json(200, success_body("c1")));
  execute();
  runtime_.answers.push_back(
      HttpResponse::json(200, R"({"resync":true,"missing":["/workspace/a.txt"]})"));
  runtime_.answers.push_back(HttpResponse::json(200, success_body("c1")));
  auto r = execute();
  EXPECT_TRUE(std::holds_alternative<InterpreterExecuteResponse>(r));
  ASSERT_EQ(runtime_.requests.size(), 3u);
  EXPECT_TRUE(pushed_paths(runtime_.requests[1]).empty());
  EXPECT_EQ(pushed_paths(runtime_.requests[2]), (std::vector<std::string>{"/workspace/a.txt"}));

  // A second resync in one call is an error (and the record is dropped: everything is sent next).
  runtime_.answers.push_back(HttpResponse::json(200, R"({"resync":true,"missing":[]})"));
  runtime_.answers.push_back(HttpResponse::json(200, R"({"resync":true,"missing":[]})"));
  r = execute();
  ASSERT_TRUE(std::holds_alternative<InterpreterCallError>(r));
  const auto& error = std::get<InterpreterCallError>(r);
  EXPECT_EQ(error.status, 500);
  EXPECT_EQ(error.body.code, ErrorCode::kInternalError);
  EXPECT_EQ(error.body.message, "Binding 'R' asked for a second workspace resync");
  runtime_.answers.push_back(HttpResponse::json(200, success_body("c1")));
  execute();
  EXPECT_EQ(pushed_paths(runtime_.requests.back()).size(), 2u);
}

TEST_F(RemoteBindingTest, ErrorAnswersAreRelayedAndTransportFailuresThrown) {
  runtime_.answers.push_back(HttpResponse::json(
      404,
      R"({"code":"CONTEXT_NOT_FOUND","message":"Code context 'c1' not found","context":{"contextId":"c1"},"httpStatus":404,"timestamp":"2026-01-01T00:00:00.000Z"})"));
  auto r = execute();
  ASSERT_TRUE(std::holds_alternative<InterpreterCallError>(r));
  EXPECT_EQ(std::get<InterpreterCallError>(r).status, 404);
  EXPECT_EQ(std::get<InterpreterCallError>(r).body.code, ErrorCode::kContextNotFound);

  runtime_.answers.push_back(HttpResponse::text(404, "Not found"));
  EXPECT_THROW(execute(), BindingError);
  runtime_.answers.push_back(HttpResponse::json(200, R"({"results":[]})"));
  EXPECT_THROW(execute(), BindingError);  // not an execute response

  auto offline = make_remote_binding("OFF", RemoteBindingOptions{.url = "http://127.0.0.1:1"});
  EXPECT_THROW(offline->fetch("GET", "/interpreter"), BindingError);
  EXPECT_THROW(make_remote_binding("BAD", RemoteBindingOptions{.url = "ftp://x"}),
               std::invalid_argument);
}

}  // namespace
}  // namespace sandbox

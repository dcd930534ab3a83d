// The runtime protocol over real loopback HTTP: every route and status-code path of
// docs/protocol.md#runtime-routes against the calc engine and small test engines.
#include <atomic>
#include <thread>

#include <boost/asio.hpp>
#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <sandbox/protocol.h>
#include <sandbox/runtime.h>

#include "calc_engine.h"
#include "client/http_client.h"
#include "support/test_server.h"

namespace sandbox {
namespace {

boost::json::object json_of(const HttpResponse& r) {
  return boost::json::parse(r.body).as_object();
}

class CalcRuntime : public ::testing::Test {
 protected:
  CalcRuntime()
      : runtime_(define_interpreter_runtime(engines::make_calc_engine())),
        server_(*runtime_),
        client_(server_.url()) {}

  HttpResponse execute(const std::string& body) { return client_.post_json("/execute", body); }

  void expect_error(const HttpResponse& r, int status, const std::string& message) {
    EXPECT_EQ(r.status, status);
    EXPECT_EQ(r.header("content-type"), "application/json");
    const auto o = json_of(r);
    EXPECT_EQ(o.at("code"), "VALIDATION_FAILED");
    EXPECT_EQ(o.at("message").as_string(), message);
    EXPECT_EQ(o.at("httpStatus"), status);
    EXPECT_TRUE(o.at("context").is_object());
    EXPECT_TRUE(o.at("timestamp").is_string());
  }

  std::unique_ptr<InterpreterRuntime> runtime_;
  test::TestServer server_;
  HttpClient client_;
};

TEST_F(CalcRuntime, ProbeReportsIdentityAndProtocol) {
  const auto r = client_.request("GET", "/interpreter");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("cache-control"), "no-store");
  const auto o = json_of(r);
  EXPECT_EQ(o.at("language"), "calc");
  EXPECT_EQ(o.at("engine"), "calc 1.0");
  EXPECT_EQ(o.at("contexts"), false);
  EXPECT_EQ(o.at("protocol"), 1);
  // Any method answers the probe.
  EXPECT_EQ(client_.request("POST", "/interpreter", "x").status, 200);
}

TEST_F(CalcRuntime, ExecutesArithmeticAndEnvVars) {
  auto r = execute(R"({"code":"1 + 2 * 3"})");
  ASSERT_EQ(r.status, 200);
  auto o = json_of(r);
  EXPECT_EQ(o.at("results").as_array().at(0).at("text"), "7");
  EXPECT_EQ(o.at("code"), "1 + 2 * 3");
  EXPECT_EQ(o.at("language"), "calc");
  EXPECT_EQ(o.at("engine"), "calc 1.0");
  EXPECT_TRUE(o.at("durationMs").is_number());
  EXPECT_EQ(o.at("logs").at("stdout").as_array().size(), 0u);
  EXPECT_FALSE(o.contains("error"));

  o = json_of(execute(R"({"code":"x * 2","envVars":{"x":"21"}})"));
  EXPECT_EQ(o.at("results").as_array().at(0).at("text"), "42");
}

TEST_F(CalcRuntime, GuestErrorsAreAnsweredWith200) {
  const auto r = execute(R"({"code":"1 / 0"})");
  ASSERT_EQ(r.status, 200);
  const auto o = json_of(r);
  EXPECT_EQ(o.at("error").at("name"), "ZeroDivisionError");
  EXPECT_EQ(o.at("results").as_array().size(), 0u);
  EXPECT_EQ(json_of(execute(R"({"code":"2 +"})")).at("error").at("name"), "SyntaxError");
  EXPECT_EQ(json_of(execute(R"({"code":"y"})")).at("error").at("name"), "NameError");
}

TEST_F(CalcRuntime, ContentTypeMustBeJson) {
  expect_error(
      client_.request("POST", "/execute", R"({"code":"1"})", {{"content-type", "text/plain"}}), 415,
      "Content-Type must be application/json");
  expect_error(client_.request("POST", "/execute", R"({"code":"1"})"), 415,
               "Content-Type must be application/json");
}

TEST_F(CalcRuntime, OversizedBodiesAre413) {
  const std::string big(kMaxRequestBytes + 1, ' ');
  expect_error(execute(big), 413, "Request too large");
}

TEST_F(CalcRuntime, StreamedBodyOverTheCapIs413BeforeItIsRead) {
  // A chunked body has no content-length: the cap applies while reading.
  namespace asio = boost::asio;
  asio::io_context ioc;
  asio::ip::tcp::socket s(ioc);
  s.connect({asio::ip::make_address("127.0.0.1"), server_.port()});
  std::string head =
      "POST /execute HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: chunked\r\n\r\n";
  asio::write(s, asio::buffer(head));
  const std::string chunk(16384, 'a');
  char size_line[32];
  std::snprintf(size_line, sizeof size_line, "%zx\r\n", chunk.size());
  boost::system::error_code ec;
  for (int i = 0; i < 8 && !ec; ++i) {  // 128 KiB announced chunk by chunk
    asio::write(s, asio::buffer(std::string(size_line) + chunk + "\r\n"), ec);
  }
  std::string response;
  char buf[4096];
  for (;;) {
    const std::size_t n = s.read_some(asio::buffer(buf), ec);
    response.append(buf, n);
    if (ec) break;
  }
  EXPECT_NE(response.find("HTTP/1.1 413"), std::string::npos) << response;
  EXPECT_NE(response.find("Request too large"), std::string::npos);
}

TEST_F(CalcRuntime, EmptyBodyNeedsJson) { expect_error(execute(""), 400, "JSON body required"); }

TEST_F(CalcRuntime, BodyValidationErrors) {
  expect_error(execute("{"), 400, "Invalid JSON");
  expect_error(execute("[]"), 400, "Expected an object");
  expect_error(execute(R"({"code":"1","input":1})"), 400,
               "input is no longer supported; pass data with envVars");
  expect_error(execute(R"({"code":"1","language":"python"})"), 400,
               "Unsupported language 'python' on this runtime (calc)");
  expect_error(execute(R"({"code":"   "})"), 400, "Non-empty code is required");
  expect_error(execute("{\"code\":\"" + std::string(70000, '1') + "\"}"), 413,
               "Code exceeds 64 KiB");
  expect_error(execute(R"({"code":"1","envVars":"x"})"), 400, "envVars must be an object");
  expect_error(execute(R"({"code":"1","envVars":{"x":true}})"), 400,
               "envVars values must be strings");
  // Accepted: its own language name, null env values skipped, bad names dropped.
  const auto ok = execute(R"({"code":"1","language":"CALC","envVars":{"x":null,"bad-name":"3"}})");
  EXPECT_EQ(ok.status, 200);
}

TEST_F(CalcRuntime, UnknownPathsAndMethodsArePlainText) {
  auto r = client_.request("GET", "/nope");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, "Not found");
  EXPECT_EQ(r.header("content-type"), "text/plain; charset=utf-8");
  r = client_.request("GET", "/execute");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.body, "Method not allowed");
  EXPECT_EQ(client_.request("PUT", "/execute", "{}").status, 405);
}

TEST_F(CalcRuntime, ContextRoutesAreRefusedForStatelessEngines) {
  expect_error(client_.request("POST", "/interpreters/abc/contexts", R"({"id":"c"})"), 400,
               "Code contexts are not supported for calc");
  expect_error(client_.request("DELETE", "/interpreters/abc"), 400,
               "Code contexts are not supported for calc");
  expect_error(client_.request("DELETE", "/interpreters/a%20b"), 400, "Invalid interpreter key");
}

TEST_F(CalcRuntime, KeepAliveServesManyRequestsOnOneConnection) {
  for (int i = 0; i < 50; ++i) {
    const auto r = execute("{\"code\":\"" + std::to_string(i) + " + 1\"}");
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(json_of(r).at("results").as_array().at(0).at("text").as_string(),
              std::to_string(i + 1));
  }
}

TEST_F(CalcRuntime, ParallelClients) {
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      HttpClient c(server_.url());
      for (int i = 0; i < 25; ++i) {
        const auto r = c.post_json("/execute", "{\"code\":\"" + std::to_string(t) + " * 10\"}");
        if (r.status == 200 && json_of(r).at("results").as_array().at(0).at("text").as_string() ==
                                   std::to_string(t * 10)) {
          ++ok;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 200);
}

Engine throwing_engine(std::function<EngineOutcome(const ExecutionRequest&)> run) {
  return Engine{.language = "test",
                .engine_name = "test 1",
                .build = "b1",
                .limits = {0, 1, 1, 1},
                .run = std::move(run),
                .sessions = std::nullopt};
}

TEST(RuntimeEngineFailures, LimitErrorsAndHostBugsBecome200Outcomes) {
  auto limit =
      define_interpreter_runtime(throwing_engine([](const ExecutionRequest&) -> EngineOutcome {
        throw ExecutionLimitError("Execution fuel exhausted");
      }));
  test::TestServer s1(*limit);
  HttpClient c1(s1.url());
  auto r = c1.post_json("/execute", R"({"code":"x"})");
  ASSERT_EQ(r.status, 200);
  auto o = json_of(r);
  EXPECT_EQ(o.at("error").at("name"), "ExecutionLimitError");
  EXPECT_EQ(o.at("error").at("message"), "Execution fuel exhausted");
  EXPECT_EQ(o.at("error").at("traceback").as_array().size(), 0u);
  EXPECT_FALSE(o.contains("usage"));

  auto bug =
      define_interpreter_runtime(throwing_engine([](const ExecutionRequest&) -> EngineOutcome {
        throw std::runtime_error(std::string(3000, 'e'));
      }));
  test::TestServer s2(*bug);
  HttpClient c2(s2.url());
  o = json_of(c2.post_json("/execute", R"({"code":"x"})"));
  EXPECT_EQ(o.at("error").at("name"), "EngineError");
  EXPECT_EQ(o.at("error").at("message").as_string().size(), 2048u);
}

TEST(RuntimeDefinition, RejectsIncompleteEngines) {
  Engine e = engines::make_calc_engine();
  e.build.clear();
  EXPECT_THROW(define_interpreter_runtime(e), std::invalid_argument);
  e = engines::make_calc_engine();
  e.run = nullptr;
  EXPECT_THROW(define_interpreter_runtime(e), std::invalid_argument);
}

TEST(RuntimeShutdown, StopFinishesTheRequestInFlight) {
  std::atomic<bool> entered{false};
  auto slow = define_interpreter_runtime(throwing_engine([&](const ExecutionRequest&) {
    entered = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EngineOutcome o;
    o.results.push_back(ResultEntry::of_text("done"));
    return o;
  }));
  auto server = std::make_unique<test::TestServer>(*slow);
  HttpResponse response;
  std::thread caller([&] {
    HttpClient c(server->url());
    response = c.post_json("/execute", R"({"code":"x"})");
  });
  while (!entered) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  server->stop();
  caller.join();
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(json_of(response).at("results").as_array().at(0).at("text"), "done");
}

}  // namespace
}  // namespace sandbox

// The MCP server (src/mcp, docs/mcp.md): the JSON-RPC dispatcher against a scripted backend
// (hostile messages, unknown methods and tools, missing arguments, backend failures), and the
// Streamable HTTP transport of sandboxd's /mcp over loopback (statuses, head checks, API keys,
// tools running in a real sandbox).
#include "mcp/mcp_server.h"

#include <atomic>
#include <chrono>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include "mcp/mcp_stdio.h"
#include "server/sandboxd_fixture.h"

namespace sandbox::test {
namespace {

namespace json = boost::json;
using mcp::McpReply;
using mcp::McpServer;

// A backend that must not be called.
mcp::Backend no_backend(std::atomic<int>& calls) {
  return [&calls](const std::string&, const std::string&, const std::string&) {
    ++calls;
    return HttpResponse::json(500, "{}");
  };
}

json::object parse_object(const std::string& text) { return json::parse(text).as_object(); }

int error_code(const McpReply& reply) {
  EXPECT_TRUE(reply.body);
  if (!reply.body) return 0;
  const json::object m = parse_object(*reply.body);
  if (!m.contains("error")) return 0;
  return static_cast<int>(m.at("error").at("code").as_int64());
}

std::string call(std::string_view tool, std::string_view arguments) {
  return R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":")" + std::string(tool) +
         R"(","arguments":)" + std::string(arguments) + "}}";
}

class McpDispatcher : public ::testing::Test {
 protected:
  std::atomic<int> calls_{0};
  McpServer server_{no_backend(calls_)};
};

TEST_F(McpDispatcher, BadJsonIsAParseErrorWithNullId) {
  const McpReply r = server_.handle("{\"jsonrpc\":\"2.0\",");
  EXPECT_TRUE(r.malformed);
  EXPECT_EQ(error_code(r), mcp::kParseError);
  EXPECT_TRUE(parse_object(*r.body).at("id").is_null());
}

TEST_F(McpDispatcher, NotARequestObjectIsAnInvalidRequest) {
  for (const char* message :
       {R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])", R"("ping")", R"({"id":1,"method":"ping"})",
        R"({"jsonrpc":"1.0","id":1,"method":"ping"})",
        R"({"jsonrpc":"2.0","id":null,"method":"ping"})",
        R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})", R"({"jsonrpc":"2.0","id":1,"method":3})",
        R"({"jsonrpc":"2.0","id":1})"}) {
    const McpReply r = server_.handle(message);
    EXPECT_TRUE(r.malformed) << message;
    EXPECT_EQ(error_code(r), mcp::kInvalidRequest) << message;
  }
}

TEST_F(McpDispatcher, DeepNestingIsRefusedQuickly) {
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  const auto start = std::chrono::steady_clock::now();
  const McpReply r = server_.handle(deep);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_EQ(error_code(r), mcp::kParseError);
}

TEST_F(McpDispatcher, OversizedMessageIsRefusedBeforeParsing) {
  const McpReply r = server_.handle(std::string(mcp::kMaxMcpMessageBytes + 1, ' '));
  EXPECT_TRUE(r.malformed);
  EXPECT_EQ(error_code(r), mcp::kInvalidRequest);
}

TEST_F(McpDispatcher, UnknownMethodIsMethodNotFoundWithTheRequestId) {
  const McpReply r = server_.handle(R"({"jsonrpc":"2.0","id":"abc","method":"resources/list"})");
  EXPECT_FALSE(r.malformed);
  EXPECT_EQ(error_code(r), mcp::kMethodNotFound);
  EXPECT_EQ(parse_object(*r.body).at("id"), "abc");
}

TEST_F(McpDispatcher, NotificationsAndResponsesGetNoReply) {
  EXPECT_FALSE(server_.handle(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").body);
  EXPECT_FALSE(server_.handle(R"({"jsonrpc":"2.0","method":"no/such/notification"})").body);
  EXPECT_FALSE(server_.handle(R"({"jsonrpc":"2.0","id":3,"result":{}})").body);
}

TEST_F(McpDispatcher, InitializeAnswersTheAskedVersionOrItsOwn) {
  const auto version = [&](const std::string& asked) {
    const McpReply r = server_.handle(
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":")" + asked +
        R"(","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
    return std::string(parse_object(*r.body).at("result").at("protocolVersion").as_string());
  };
  EXPECT_EQ(version("2025-06-18"), "2025-06-18");
  EXPECT_EQ(version("2025-03-26"), "2025-03-26");
  EXPECT_EQ(version("1999-01-01"), "2025-06-18");
  EXPECT_EQ(parse_object(*server_.handle(R"({"jsonrpc":"2.0","id":2,"method":"ping"})").body)
                .at("result"),
            json::object{});
}

// SANDBOX_TEST_PROJECT_VERSION is project(VERSION) as CMake has it (tests/mcp/CMakeLists.txt).
TEST_F(McpDispatcher, InitializeReportsTheProjectVersion) {
  const McpReply r = server_.handle(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
      R"("capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  ASSERT_TRUE(r.body.has_value());
  const json::object answer = parse_object(*r.body);
  const json::value& info = answer.at("result").at("serverInfo");
  EXPECT_EQ(info.at("name"), "sandboxd");
  EXPECT_EQ(info.at("version"), SANDBOX_TEST_PROJECT_VERSION);
}

TEST_F(McpDispatcher, ToolsListHasEveryToolWithASchema) {
  const McpReply r = server_.handle(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  const json::object answer = parse_object(*r.body);
  const json::array& tools = answer.at("result").at("tools").as_array();
  std::vector<std::string> names;
  for (const auto& t : tools) {
    names.emplace_back(t.at("name").as_string());
    EXPECT_EQ(t.at("inputSchema").at("type"), "object");
    EXPECT_GT(t.at("description").as_string().size(), 20u);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"list_languages", "run_code", "create_context",
                                             "list_contexts", "delete_context", "read_file",
                                             "write_file", "list_files", "delete_file"}));
}

TEST_F(McpDispatcher, UnknownToolIsInvalidParams) {
  EXPECT_EQ(error_code(server_.handle(call("format_disk", "{}"))), mcp::kInvalidParams);
  EXPECT_EQ(error_code(server_.handle(
                R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}})")),
            mcp::kInvalidParams);
  EXPECT_EQ(calls_, 0);
}

TEST_F(McpDispatcher, MissingOrMistypedArgumentsAreInvalidParams) {
  for (const auto& [tool, arguments] : std::vector<std::pair<std::string, std::string>>{
           {"run_code", R"({"language":"lua"})"},
           {"run_code", R"({"code":"1"})"},                   // neither language nor context_id
           {"run_code", R"({"code":"1","context_id":"c"})"},  // a context needs a sandbox
           {"run_code", R"({"code":1,"language":"lua"})"},
           {"run_code", R"({"code":"1","language":"lua","sandbox":"s"})"},
           {"run_code", R"({"code":"1","language":"lua","sandbox_id":"s","env_vars":{"A":1}})"},
           {"write_file", R"({"sandbox_id":"s","path":"a"})"},
           {"read_file", R"({"sandbox_id":"s","path":"a","encoding":"latin1"})"},
           {"list_files", R"({"sandbox_id":"s","recursive":"yes"})"},
           {"delete_context", R"({"sandbox_id":"s"})"},
       }) {
    EXPECT_EQ(error_code(server_.handle(call(tool, arguments))), mcp::kInvalidParams)
        << tool << " " << arguments;
  }
  EXPECT_EQ(
      error_code(server_.handle(
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_code","arguments":[]}})")),
      mcp::kInvalidParams);
  EXPECT_EQ(calls_, 0);
}

// The text and isError of a tools/call result.
std::pair<std::string, bool> tool_result(const McpReply& reply) {
  const json::object result = parse_object(*reply.body).at("result").as_object();
  return {std::string(result.at("content").at(0).at("text").as_string()),
          result.at("isError").as_bool()};
}

TEST_F(McpDispatcher, HostileIdsNeverReachARequestPath) {
  auto [text, is_error] =
      tool_result(server_.handle(call("list_contexts", R"({"sandbox_id":"a b\r\nHost: evil"})")));
  EXPECT_TRUE(is_error);
  EXPECT_NE(text.find("Invalid sandbox id"), std::string::npos) << text;
  std::tie(text, is_error) = tool_result(
      server_.handle(call("delete_context", R"({"sandbox_id":"s1","context_id":"../../x"})")));
  EXPECT_TRUE(is_error);
  EXPECT_EQ(calls_, 0);
}

TEST(McpTools, BackendFailuresAreIsErrorResults) {
  const McpServer throwing(
      [](const std::string&, const std::string&, const std::string&) -> HttpResponse {
        throw std::runtime_error("connection refused");
      });
  auto [text, is_error] = tool_result(throwing.handle(call("list_languages", "{}")));
  EXPECT_TRUE(is_error);
  EXPECT_EQ(text, "connection refused");

  const McpServer garbage([](const std::string&, const std::string&, const std::string&) {
    return HttpResponse::text(200, "<html>");
  });
  std::tie(text, is_error) =
      tool_result(garbage.handle(call("list_contexts", R"({"sandbox_id":"s"})")));
  EXPECT_TRUE(is_error);
  EXPECT_NE(text.find("not JSON"), std::string::npos) << text;

  // An execute answer that is JSON but not an ExecutionResult.
  const McpServer odd([](const std::string& method, const std::string&, const std::string&) {
    return HttpResponse::json(200, method == "GET"
                                       ? R"({"languages":[{"id":"lua","binding":"LUA"}]})"
                                       : R"({"results":7})");
  });
  std::tie(text, is_error) =
      tool_result(odd.handle(call("run_code", R"({"language":"lua","code":"1"})")));
  EXPECT_TRUE(is_error);
  EXPECT_NE(text.find("Invalid sandbox response"), std::string::npos) << text;
}

// Found by fuzz_mcp_requests: a non-JSON error body with invalid UTF-8, quoted into the
// result's text, made the reply invalid JSON.
TEST(McpTools, InvalidUtf8InAnErrorBodyStaysValidJson) {
  const McpServer server([](const std::string&, const std::string&, const std::string&) {
    return HttpResponse::text(502, "<html>\xbc\xff</html>");
  });
  const McpReply reply = server.handle(call("list_contexts", R"({"sandbox_id":"s"})"));
  auto [text, is_error] = tool_result(reply);
  EXPECT_TRUE(is_error);
  EXPECT_EQ(text, "HTTP 502: response is not JSON: <html>\xEF\xBF\xBD\xEF\xBF\xBD</html>");
}

TEST(McpStdio, OneReplyLinePerRequestAndOverlongLinesRefused) {
  std::atomic<int> calls{0};
  const McpServer server(no_backend(calls));
  std::istringstream in(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n" +
      std::string(mcp::kMaxMcpMessageBytes + 10, 'x') +
      "\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
  std::ostringstream out;
  EXPECT_EQ(mcp::serve_mcp_stdio(server, in, out), 0);
  std::istringstream lines(out.str());
  std::vector<json::object> replies;
  for (std::string line; std::getline(lines, line);) replies.push_back(parse_object(line));
  ASSERT_EQ(replies.size(), 3u) << out.str();
  EXPECT_EQ(replies[0].at("id"), 1);
  EXPECT_EQ(replies[1].at("error").at("code"), mcp::kInvalidRequest);
  EXPECT_EQ(replies[2].at("id"), 2);
}

// ---- /mcp over loopback -------------------------------------------------------------------------

class McpHttp : public ::testing::Test {
 protected:
  void start(std::vector<std::string> api_keys = {}) {
    SandboxdFixtureOptions o;
    o.engines = {"kv", "calc", "lua"};
    o.db_path = dir_.file("sandboxd.db");
    o.api_keys = std::move(api_keys);
    d_ = std::make_unique<InProcessSandboxd>(o);
  }
  void SetUp() override { start(); }

  HttpResponse post(const std::string& body,
                    std::vector<std::pair<std::string, std::string>> headers = {}) {
    return d_->call("POST", "/mcp", body, std::move(headers));
  }
  // tools/call over HTTP: the result object.
  json::object tool(std::string_view name, std::string_view arguments) {
    const HttpResponse r = post(call(name, arguments));
    EXPECT_EQ(r.status, 200) << r.body;
    return parse_object(r.body).at("result").as_object();
  }
  static std::string text(const json::object& result) {
    return std::string(result.at("content").at(0).at("text").as_string());
  }

  TempDir dir_;
  std::unique_ptr<InProcessSandboxd> d_;
};

TEST_F(McpHttp, StatusesOfTheTransport) {
  HttpResponse r = post(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type").value_or(""), "application/json");
  r = post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  EXPECT_EQ(r.status, 202);
  EXPECT_EQ(r.body, "");
  r = post("{");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(parse_object(r.body).at("error").at("code"), mcp::kParseError);
  r = d_->call("GET", "/mcp", "", {{"accept", "text/event-stream"}});
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.header("allow").value_or(""), "POST");
  EXPECT_EQ(d_->call("DELETE", "/mcp").status, 405);
  r = d_->call("POST", "/mcp", R"({"jsonrpc":"2.0","id":1,"method":"ping"})",
               {{"content-type", "text/plain"}});
  EXPECT_EQ(r.status, 415);
  r = post(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", {{"mcp-protocol-version", "2099-01-01"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("MCP-Protocol-Version"), std::string::npos);
  r = post(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", {{"mcp-protocol-version", "2025-06-18"}});
  EXPECT_EQ(r.status, 200);
}

TEST_F(McpHttp, ForeignOriginIsRefusedWithoutApiKeys) {
  const std::string ping = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  EXPECT_EQ(post(ping, {{"origin", "http://attacker.example"}}).status, 403);
  EXPECT_EQ(post(ping, {{"origin", "http://localhost:3000"}}).status, 200);
  EXPECT_EQ(post(ping, {{"origin", "http://127.0.0.1"}}).status, 200);
  // Rebinding names a foreign host that resolves to loopback: still foreign.
  EXPECT_EQ(post(ping, {{"origin", "http://[::1]:8080"}}).status, 200);
  // A foreign host that starts like a loopback one (Boost.URL 1.81 reads 127.0.0.1 as its host).
  for (const char* origin :
       {"http://127.0.0.1.attacker.example", "http://localhost.attacker.example",
        "http://localhost:80@attacker.example", "http://127.0.0.1:8080/x", "file://127.0.0.1",
        "null", "http://[::1", "http://localhost:"}) {
    EXPECT_EQ(post(ping, {{"origin", origin}}).status, 403) << origin;
  }
}

TEST_F(McpHttp, ApiKeysApplyToMcp) {
  start({"k1"});
  const std::string ping = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  EXPECT_EQ(post(ping).status, 401);
  EXPECT_EQ(post(ping, {{"authorization", "Bearer nope"}}).status, 401);
  EXPECT_EQ(post(ping, {{"authorization", "Bearer k1"}}).status, 200);
  // With a key, a page's Origin cannot do anything the key does not allow.
  EXPECT_EQ(post(ping, {{"authorization", "Bearer k1"}, {"origin", "https://app.example"}}).status,
            200);
}

TEST_F(McpHttp, RunCodeKeepsStateInADefaultContextAndReportsGuestErrors) {
  json::object r = tool("run_code", R"({"language":"lua","code":"n = 41","sandbox_id":"m1"})");
  EXPECT_FALSE(r.at("isError").as_bool()) << text(r);
  r = tool("run_code",
           R"j({"language":"LUA","code":"print('hi') return n + 1","sandbox_id":"m1"})j");
  EXPECT_EQ(text(r).substr(0, 24), "stdout:\nhi\nresult: 42\nco") << text(r);
  const std::string context_id(r.at("structuredContent").at("context").at("id").as_string());

  r = tool("run_code", R"({"code":"n * 2","sandbox_id":"m1","context_id":")" + context_id + "\"}");
  EXPECT_NE(text(r).find("result: 82"), std::string::npos) << text(r);

  r = tool("run_code", R"j({"language":"lua","code":"error('boom')","sandbox_id":"m1"})j");
  EXPECT_TRUE(r.at("isError").as_bool());
  EXPECT_NE(text(r).find("error: LuaError: input:1: boom"), std::string::npos) << text(r);

  r = tool("run_code", R"({"language":"cobol","code":"1"})");
  EXPECT_TRUE(r.at("isError").as_bool());
  EXPECT_NE(text(r).find("No binding runs 'cobol' (available: kv, calc, lua)"), std::string::npos)
      << text(r);
}

TEST_F(McpHttp, EachToolRequestIsHeldToItsRoutesBodyCap) {
  // A write_file body may be as large as the files API takes (more than 96 KiB)...
  const std::string big(200'000, 'a');
  json::object r =
      tool("write_file", R"({"sandbox_id":"m2","path":"big.txt","content":")" + big + "\"}");
  EXPECT_FALSE(r.at("isError").as_bool()) << text(r);
  // ...but the same size of code is refused as POST /sandboxes/{id}/execute refuses it.
  r = tool("run_code", R"({"language":"lua","sandbox_id":"m2","code":")" + big + "\"}");
  EXPECT_TRUE(r.at("isError").as_bool());
  EXPECT_NE(text(r).find("HTTP 413"), std::string::npos) << text(r);
}

TEST_F(McpHttp, FileToolsAndContextTools) {
  json::object r = tool(
      "write_file", R"({"sandbox_id":"m3","path":"d/e/f.txt","content":"x","make_parents":true})");
  EXPECT_FALSE(r.at("isError").as_bool()) << text(r);
  r = tool("read_file", R"({"sandbox_id":"m3","path":"/workspace/d/e/f.txt"})");
  EXPECT_EQ(text(r), "x");
  r = tool("list_files", R"({"sandbox_id":"m3","recursive":true})");
  EXPECT_EQ(r.at("structuredContent").at("files").as_array().size(), 3u) << text(r);
  r = tool("delete_file", R"({"sandbox_id":"m3","path":"d"})");
  EXPECT_TRUE(r.at("isError").as_bool());  // a non-empty directory needs recursive
  r = tool("delete_file", R"({"sandbox_id":"m3","path":"d","recursive":true})");
  EXPECT_FALSE(r.at("isError").as_bool()) << text(r);

  r = tool("create_context", R"({"sandbox_id":"m3","language":"kv"})");
  const std::string id(r.at("structuredContent").at("id").as_string());
  r = tool("list_contexts", R"({"sandbox_id":"m3"})");
  EXPECT_EQ(r.at("structuredContent").at("contexts").at(0).at("id").as_string(), id);
  r = tool("delete_context", R"({"sandbox_id":"m3","context_id":")" + id + "\"}");
  EXPECT_FALSE(r.at("isError").as_bool()) << text(r);
  r = tool("delete_context", R"({"sandbox_id":"m3","context_id":")" + id + "\"}");
  EXPECT_TRUE(r.at("isError").as_bool());
  EXPECT_NE(text(r).find("CONTEXT_NOT_FOUND"), std::string::npos) << text(r);
}

}  // namespace
}  // namespace sandbox::test

// Streaming output (docs/protocol.md#streaming-output, ST1-ST7) over real HTTP on loopback with
// the Lua engine: sandboxd's POST /sandboxes/{id}/execute and /execute/{language}, a runtime's
// POST /execute (sandboxd's /runtimes/LUA), a remote binding relaying a runtime's stream, a
// client leaving mid-stream, request errors, truncation, and the C++ client's callbacks.
#include <chrono>
#include <thread>

#include <boost/asio.hpp>
#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <sandbox/client.h>

#include "client/execute_stream_reader.h"
#include "server/sandboxd_fixture.h"

namespace sandbox::test {
namespace {

// Prints, flushes, computes for about a second (12M iterations: 24M of Lua's 50M fuel), prints.
constexpr const char* kSlowProgram =
    "n = (n or 0) + 1 print('start') io.stdout:flush() "
    "local x = 0 for i = 1, 12000000 do x = x + i end "
    "print('end') return n";

struct Event {
  std::string name;  // "stdout", "stderr" or "result"
  std::string data;  // the text, or the result's JSON
  std::chrono::steady_clock::time_point at;
};

struct Streamed {
  HttpResponse head;  // the answer as HttpClient saw it (body empty when streamed)
  std::vector<Event> events;
  std::chrono::steady_clock::time_point sent;
};

// One POST with Accept: text/event-stream; every event recorded with its arrival time.
Streamed post_streaming(const std::string& url, const std::string& path, const std::string& body) {
  Streamed s;
  EventStreamParser parser([&](std::string_view name, std::string_view data) {
    s.events.push_back(
        Event{std::string(name), std::string(data), std::chrono::steady_clock::now()});
  });
  HttpClient client(url);
  s.sent = std::chrono::steady_clock::now();
  s.head = client.request_streaming(
      "POST", path, body, {{"content-type", "application/json"}, {"accept", "text/event-stream"}},
      [&](std::string_view piece) { parser.feed(piece); });
  return s;
}

std::string text_of(const Event& e) { return std::string(boost::json::parse(e.data).as_string()); }

// An answer without what legitimately differs between two runs.
boost::json::object comparable(std::string_view json) {
  boost::json::object o = boost::json::parse(json).as_object();
  o.erase("durationMs");
  if (auto* c = o.if_contains("context"); c && c->is_object()) {
    c->as_object().erase("id");
    c->as_object().erase("expiresAt");
    c->as_object().erase("snapshotMs");
  }
  return o;
}

class Streaming : public ::testing::Test {
 protected:
  void SetUp() override {
    SandboxdFixtureOptions o;
    o.engines = {"calc", "lua"};
    o.db_path = dir_.file("db");
    d_ = std::make_unique<InProcessSandboxd>(o);
  }

  // Checks the shape of a stream of kSlowProgram and returns the result event's data.
  std::string check_slow_stream(const Streamed& s) {
    EXPECT_EQ(s.head.status, 200);
    EXPECT_EQ(s.head.header("content-type").value_or(""), "text/event-stream");
    EXPECT_TRUE(s.head.body.empty());
    EXPECT_EQ(s.head.header("transfer-encoding").value_or(""), "chunked");
    if (s.events.size() != 3u) {
      ADD_FAILURE() << "expected stdout, stdout, result; got " << s.events.size() << " events";
      return "{}";
    }
    EXPECT_EQ(s.events[0].name, "stdout");
    EXPECT_EQ(text_of(s.events[0]), "start\n");
    EXPECT_EQ(s.events[1].name, "stdout");
    EXPECT_EQ(text_of(s.events[1]), "end\n");
    EXPECT_EQ(s.events[2].name, "result");
    // Nearly all of the engine call (durationMs) is the loop between the two prints, so when
    // "start" was streamed as it was written, it arrived about that long before "end"; had it
    // waited for the end of the call, both would arrive together. (Comparing the first event's
    // arrival with the time since sending also counts the work before the call, which a slow
    // build, e.g. under AddressSanitizer, makes longer than the loop.)
    const double duration_ms =
        boost::json::parse(s.events[2].data).as_object().at("durationMs").to_number<double>();
    const double gap_ms =
        std::chrono::duration<double, std::milli>(s.events[1].at - s.events[0].at).count();
    EXPECT_GT(gap_ms, duration_ms / 2) << "the first event came only after the computation";
    return s.events[2].data;
  }

  TempDir dir_;
  std::unique_ptr<InProcessSandboxd> d_;
};

TEST_F(Streaming, SandboxExecuteStreamsOutputBeforeTheComputationEnds) {
  const std::string body =
      boost::json::serialize(boost::json::object{{"code", kSlowProgram}, {"binding", "LUA"}});
  const Streamed s = post_streaming(d_->url(), "/sandboxes/st-1/execute", body);
  const std::string result = check_slow_stream(s);
  // The same program on a sandbox in the same state, without the header.
  const HttpResponse plain = d_->call("POST", "/sandboxes/st-2/execute", body);
  ASSERT_EQ(plain.status, 200) << plain.body;
  EXPECT_EQ(comparable(result), comparable(plain.body));
  EXPECT_EQ(boost::json::parse(result).at("executionCount").as_int64(), 1);
}

TEST_F(Streaming, StatelessAndRuntimeExecuteStream) {
  const std::string body = boost::json::serialize(boost::json::object{{"code", kSlowProgram}});
  for (const std::string path : {"/execute/lua", "/runtimes/LUA/execute"}) {
    SCOPED_TRACE(path);
    const std::string result = check_slow_stream(post_streaming(d_->url(), path, body));
    const HttpResponse plain = d_->call("POST", path, body);
    ASSERT_EQ(plain.status, 200) << plain.body;
    EXPECT_EQ(comparable(result), comparable(plain.body));
  }
}

TEST_F(Streaming, RemoteBindingRelaysTheRuntimeStream) {
  SandboxdFixtureOptions o;
  o.engines = {"calc"};
  o.remote = {{"RLUA", d_->url() + "/runtimes/LUA"}};
  o.db_path = dir_.file("front.db");
  InProcessSandboxd front(o);
  const std::string body =
      boost::json::serialize(boost::json::object{{"code", kSlowProgram}, {"binding", "RLUA"}});
  const std::string result =
      check_slow_stream(post_streaming(front.url(), "/sandboxes/remote-1/execute", body));
  const HttpResponse plain = front.call("POST", "/sandboxes/remote-2/execute", body);
  ASSERT_EQ(plain.status, 200) << plain.body;
  EXPECT_EQ(comparable(result), comparable(plain.body));
  // The stateless route through the remote binding streams too.
  const std::string stateless = boost::json::serialize(boost::json::object{{"code", kSlowProgram}});
  check_slow_stream(post_streaming(front.url(), "/execute/rlua", stateless));
}

TEST_F(Streaming, ClientLeavingMidStreamLeavesTheSandboxUsable) {
  namespace asio = boost::asio;
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  socket.connect({asio::ip::make_address("127.0.0.1"), d_->port()});
  const std::string body =
      boost::json::serialize(boost::json::object{{"code", kSlowProgram}, {"binding", "LUA"}});
  const std::string request =
      "POST /sandboxes/leaver/execute HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
      "accept: text/event-stream\r\ncontent-length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  asio::write(socket, asio::buffer(request));
  std::string got;
  std::array<char, 4096> buf;
  while (got.find("event: stdout") == std::string::npos) {
    const std::size_t n = socket.read_some(asio::buffer(buf));
    got.append(buf.data(), n);
  }
  EXPECT_EQ(got.find("event: result"), std::string::npos);  // left before the end
  socket.close();

  // The execution ran to its end and was kept: the next call (queued behind it) sees n = 1.
  const HttpResponse next = d_->call(
      "POST", "/sandboxes/leaver/execute",
      boost::json::serialize(boost::json::object{{"code", "return n"}, {"binding", "LUA"}}));
  ASSERT_EQ(next.status, 200) << next.body;
  const auto o = boost::json::parse(next.body).as_object();
  EXPECT_EQ(o.at("results").as_array().at(0).at("text").as_string(), "1");
  EXPECT_EQ(o.at("executionCount").as_int64(), 2);
  EXPECT_EQ(o.at("context").at("executions").as_int64(), 2);
}

TEST_F(Streaming, RequestErrorsKeepTheirErrorResponse) {
  const std::vector<std::pair<std::string, std::string>> headers = {
      {"content-type", "application/json"}, {"accept", "text/event-stream"}};
  struct Case {
    std::string path;
    std::string body;
    int status;
  };
  for (const Case& c :
       std::vector<Case>{{"/execute/cobol", R"({"code":"1"})", 400},
                         {"/execute/lua", "{not json", 400},
                         {"/runtimes/LUA/execute", R"({"code":""})", 400},
                         {"/sandboxes/errs/execute", R"({"code":"1","binding":"NOPE"})", 400},
                         {"/sandboxes/errs/execute", R"({"code":"1","contextId":"missing"})", 404},
                         {"/sandboxes/errs/execute", "[]", 400}}) {
    SCOPED_TRACE(c.path + " " + c.body);
    const HttpResponse r = d_->call("POST", c.path, c.body, headers);
    EXPECT_EQ(r.status, c.status) << r.body;
    EXPECT_EQ(r.header("content-type").value_or(""), "application/json");
    const auto o = boost::json::parse(r.body).as_object();
    EXPECT_EQ(o.at("httpStatus").as_int64(), c.status);
    EXPECT_TRUE(o.contains("code"));
  }
}

TEST_F(Streaming, OutputTruncationIsTheSameInBothModes) {
  // 1,000 flushed lines of 99 bytes: the output limit (32,768 bytes or 200 pieces) cuts it.
  const std::string body = boost::json::serialize(boost::json::object{
      {"code", "for i = 1, 1000 do io.write(string.rep('x', 98) .. '\\n') io.stdout:flush() end"}});
  const Streamed s = post_streaming(d_->url(), "/execute/lua", body);
  ASSERT_FALSE(s.events.empty());
  ASSERT_EQ(s.events.back().name, "result");
  std::string streamed;
  for (std::size_t i = 0; i + 1 < s.events.size(); ++i) streamed += text_of(s.events[i]);
  const HttpResponse plain = d_->call("POST", "/execute/lua", body);
  const auto result = comparable(s.events.back().data);
  EXPECT_EQ(result, comparable(plain.body));
  ASSERT_TRUE(result.contains("error"));
  EXPECT_EQ(result.at("error").at("message").as_string(), "Output limit exceeded");
  // The stream carried only pieces the capture accepted: within both bounds, and whole lines of
  // the program's output. (A limit that stops a stateless guest leaves the result without logs,
  // with or without streaming, ST5.)
  EXPECT_LE(streamed.size(), 32'768u);
  EXPECT_LE(s.events.size() - 1, 200u);
  EXPECT_GT(streamed.size(), 0u);
  std::string line(98, 'x');
  line += '\n';
  EXPECT_EQ(streamed.size() % line.size(), 0u);
  EXPECT_EQ(streamed.find_first_not_of(line), std::string::npos);
}

TEST_F(Streaming, ClientCallbacksReceiveTheOutputInOrder) {
  const std::string code =
      "io.write('a') io.stdout:flush() io.stderr:write('b') io.stderr:flush() "
      "io.write('c\\n') return 7";
  std::vector<std::string> seen;
  auto sb = get_sandbox(d_->url(), "client-stream");
  const auto r = sb.run_code(
      code,
      {.binding = "LUA",
       .on_stdout = [&](const std::string& l) { seen.push_back("line:" + l); },
       .on_stdout_text = [&](std::string_view t) { seen.push_back("out:" + std::string(t)); },
       .on_stderr_text = [&](std::string_view t) { seen.push_back("err:" + std::string(t)); }});
  EXPECT_EQ(seen, (std::vector<std::string>{"out:a", "err:b", "out:c\n", "line:ac"}));
  EXPECT_EQ(r.outcome.logs.stdout_lines, (std::vector<std::string>{"ac"}));
  EXPECT_EQ(*r.outcome.results.at(0).text, "7");
  EXPECT_EQ(r.execution_count, 1u);

  seen.clear();
  const auto stateless = run_code(
      d_->url() + "/runtimes/LUA", code,
      {.on_stdout_text = [&](std::string_view t) { seen.push_back("out:" + std::string(t)); },
       .on_stderr_text = [&](std::string_view t) { seen.push_back("err:" + std::string(t)); }});
  EXPECT_EQ(seen, (std::vector<std::string>{"out:a", "err:b", "out:c\n"}));
  EXPECT_EQ(*stateless.outcome.results.at(0).text, "7");

  // A request error still throws its typed error.
  EXPECT_THROW(
      sb.run_code("1", {.context = std::string("nope"), .on_stdout_text = [](std::string_view) {}}),
      ContextNotFoundError);
}

}  // namespace
}  // namespace sandbox::test

namespace sandbox::test {
namespace {

TEST(EventStreamParser, SplitsEventsAcrossPiecesAndLineEndings) {
  std::vector<std::string> seen;
  EventStreamParser parser([&](std::string_view name, std::string_view data) {
    seen.push_back(std::string(name) + "=" + std::string(data));
  });
  const std::string stream = "event: a\r\ndata: 1\r\ndata: 2\r\n\r\n: note\revent: b\rdata:x\r\r";
  for (const char c : stream) parser.feed(std::string_view(&c, 1));
  EXPECT_EQ(seen, (std::vector<std::string>{"a=1\n2", "b=x"}));
}

TEST(EventStreamParser, OverlongLineIsRefused) {
  EventStreamParser parser([](std::string_view, std::string_view) {});
  const std::string piece(1 << 20, 'x');
  EXPECT_THROW(
      {
        for (std::size_t fed = 0; fed <= kMaxEventStreamLineBytes; fed += piece.size()) {
          parser.feed(piece);
        }
      },
      EventStreamError);
}

TEST(EventStreamParser, OverlongEventIsRefused) {
  EventStreamParser parser([](std::string_view, std::string_view) {});
  const std::string line = "data: " + std::string(1 << 20, 'x') + "\n";
  EXPECT_THROW(
      {
        for (std::size_t fed = 0; fed <= kMaxEventStreamEventBytes; fed += line.size()) {
          parser.feed(line);
        }
      },
      EventStreamError);
}

}  // namespace
}  // namespace sandbox::test

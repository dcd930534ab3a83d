// Streaming output (docs/protocol.md#streaming-output, ST1-ST7) over real HTTP on loopback with
// the Lua engine: sandboxd's POST /sandboxes/{id}/execute and /execute/{language}, a runtime's
// POST /execute (sandboxd's /runtimes/LUA), a remote binding relaying a runtime's stream, a
// client leaving mid-stream, request errors, truncation, and the C++ client's callbacks.
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>

#include <boost/asio.hpp>
#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <sandbox/client.h>

#include "client/execute_stream_reader.h"
#include "server/sandboxd_fixture.h"

namespace sandbox::test {
namespace {

// Prints and flushes "start", then "end". Streamed, the engine is held in its write of "start"
// until the test has read that event (GatedEngine below).
constexpr const char* kSlowProgram =
    "n = (n or 0) + 1 print('start') io.stdout:flush() print('end') return n";

// How long a held run waits for the test before it goes on by itself (and the test fails).
constexpr std::chrono::seconds kGateTimeout{30};

// Streaming is shown by order, not by time: a streamed run of kSlowProgram is held inside its
// write of "start" until the test, having read the "start" event over HTTP, opens the gate. Had
// the server kept the output until the run ended, the event could not arrive before the run
// went on, and the hold would end by its timeout instead (counted, and checked by every test).
class Gate {
 public:
  // On the executing thread, right after the piece was handed to the server's observer.
  void hold() {
    std::unique_lock lock(mu_);
    ++held_;
    if (!cv_.wait_for(lock, kGateTimeout, [&] { return open_; })) ++timed_out_;
    open_ = false;  // one opening lets one hold pass
  }
  void open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  int held() {
    std::lock_guard lock(mu_);
    return held_;
  }
  int timed_out() {
    std::lock_guard lock(mu_);
    return timed_out_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  int held_ = 0;
  int timed_out_ = 0;
};

// The request with its output observer wrapped: each piece containing "start" is forwarded to
// the server first, then held at the gate. A request without an observer (not streamed) runs
// as it came.
ExecutionRequest gated(const ExecutionRequest& request, Gate& gate) {
  ExecutionRequest copy = request;
  copy.on_output = [forward = request.on_output, &gate](OutputStream stream,
                                                        std::string_view text) {
    forward(stream, text);
    if (text.find("start") != std::string_view::npos) gate.hold();
  };
  return copy;
}

class GatedInstance final : public SessionInstance {
 public:
  GatedInstance(std::unique_ptr<SessionInstance> inner, Gate& gate)
      : inner_(std::move(inner)), gate_(gate) {}
  std::string cwd() const override { return inner_->cwd(); }
  bool invalid() const override { return inner_->invalid(); }
  SessionOutcome execute(const ExecutionRequest& request) override {
    return request.on_output ? inner_->execute(gated(request, gate_)) : inner_->execute(request);
  }
  bool can_snapshot() const override { return inner_->can_snapshot(); }
  SessionSnapshot snapshot() override { return inner_->snapshot(); }
  void close() override { inner_->close(); }

 private:
  std::unique_ptr<SessionInstance> inner_;
  Gate& gate_;
};

// The real engine (Lua: the guest's own writes reach the observer) with its runs gated.
Engine gate_engine(Engine engine, Gate& gate) {
  engine.run = [run = engine.run, &gate](const ExecutionRequest& request) {
    return request.on_output ? run(gated(request, gate)) : run(request);
  };
  if (engine.sessions) {
    Sessions& s = *engine.sessions;
    s.boot = [boot = s.boot, &gate](const SessionOptions& o) -> std::unique_ptr<SessionInstance> {
      return std::make_unique<GatedInstance>(boot(o), gate);
    };
    s.restore = [restore = s.restore, &gate](
                    const SessionOptions& o,
                    const SnapshotSource& source) -> std::unique_ptr<SessionInstance> {
      return std::make_unique<GatedInstance>(restore(o, source), gate);
    };
  }
  return engine;
}

struct Event {
  std::string name;  // "stdout", "stderr" or "result"
  std::string data;  // the text, or the result's JSON
};

struct Streamed {
  HttpResponse head;  // the answer as HttpClient saw it (body empty when streamed)
  std::vector<Event> events;
};

// One POST with Accept: text/event-stream; every event recorded in order. On reading a stdout
// event that contains "start", the gate (if any) is opened.
Streamed post_streaming(const std::string& url, const std::string& path, const std::string& body,
                        Gate* gate = nullptr) {
  Streamed s;
  EventStreamParser parser([&](std::string_view name, std::string_view data) {
    s.events.push_back(Event{std::string(name), std::string(data)});
    if (gate != nullptr && name == "stdout" && data.find("start") != std::string_view::npos) {
      gate->open();
    }
  });
  HttpClient client(url);
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
    o.decorate_engine = [this](Engine e) { return gate_engine(std::move(e), gate_); };
    d_ = std::make_unique<InProcessSandboxd>(o);
  }

  void TearDown() override { EXPECT_EQ(gate_.timed_out(), 0) << "a held run was not released"; }

  // Streams kSlowProgram's request, opening the gate on "start"; checks that the run was held
  // there until then (one hold, none timed out) and the stream's shape; returns the result
  // event's data.
  std::string stream_slow(const std::string& url, const std::string& path,
                          const std::string& body) {
    const int held = gate_.held();
    const Streamed s = post_streaming(url, path, body, &gate_);
    EXPECT_EQ(gate_.held(), held + 1) << "the run was not streamed (never held at the gate)";
    EXPECT_EQ(gate_.timed_out(), 0)
        << "the first event came only after the run had ended: it was not streamed";
    return check_slow_stream(s);
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
    return s.events[2].data;
  }

  TempDir dir_;
  Gate gate_;
  std::unique_ptr<InProcessSandboxd> d_;
};

TEST_F(Streaming, SandboxExecuteStreamsOutputBeforeTheComputationEnds) {
  const std::string body =
      boost::json::serialize(boost::json::object{{"code", kSlowProgram}, {"binding", "LUA"}});
  const std::string result = stream_slow(d_->url(), "/sandboxes/st-1/execute", body);
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
    const std::string result = stream_slow(d_->url(), path, body);
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
  const std::string result = stream_slow(front.url(), "/sandboxes/remote-1/execute", body);
  const HttpResponse plain = front.call("POST", "/sandboxes/remote-2/execute", body);
  ASSERT_EQ(plain.status, 200) << plain.body;
  EXPECT_EQ(comparable(result), comparable(plain.body));
  // The stateless route through the remote binding streams too.
  const std::string stateless = boost::json::serialize(boost::json::object{{"code", kSlowProgram}});
  stream_slow(front.url(), "/execute/rlua", stateless);
}

TEST_F(Streaming, ClientLeavingMidStreamLeavesTheSandboxUsable) {
  namespace asio = boost::asio;
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  socket.connect({asio::ip::make_address("127.0.0.1"), d_->port()});
  const std::string body =
      boost::json::serialize(boost::json::object{{"code", kSlowProgram}, {"binding", "LUA"}});
  const std::string request =
      "POST /sandboxes/leaver/execute HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: "
      "application/json\r\n"
      "accept: text/event-stream\r\ncontent-length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  asio::write(socket, asio::buffer(request));
  std::string got;
  std::array<char, 4096> buf;
  while (got.find("event: stdout") == std::string::npos) {
    const std::size_t n = socket.read_some(asio::buffer(buf));
    got.append(buf.data(), n);
  }
  // Held at the gate until now: the run cannot have ended.
  EXPECT_EQ(got.find("event: result"), std::string::npos);
  gate_.open();
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

// The C++ client (include/sandbox/client.h) against sandboxd's core served in process: every
// SandboxClient method, list_languages, run_code/probe_runtime through /runtimes/, API keys, the
// typed errors built from ErrorResponse bodies (docs/sandbox-api.md#client-errors), and the
// client over a ClientTransport of the caller's.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <sandbox/client.h>

#include "client/http_client.h"
#include "server/sandboxd_fixture.h"

namespace sandbox::test {
namespace {

class Client : public ::testing::Test {
 protected:
  void SetUp() override {
    SandboxdFixtureOptions o;
    o.engines = {"kv", "calc", "lua"};
    o.db_path = dir_.file("db");
    d_ = std::make_unique<InProcessSandboxd>(o);
  }
  TempDir dir_;
  std::unique_ptr<InProcessSandboxd> d_;
};

TEST_F(Client, CodeContextsAndRunCode) {
  auto sb = get_sandbox(d_->url(), "client-1");
  EXPECT_EQ(sb.id(), "client-1");
  auto r = sb.run_code("incr n", {.binding = "KV"});
  ASSERT_EQ(r.outcome.results.size(), 1u);
  EXPECT_EQ(*r.outcome.results[0].text, "1");
  ASSERT_TRUE(r.context);
  ASSERT_TRUE(r.execution_count);
  EXPECT_EQ(*r.execution_count, 1u);
  EXPECT_EQ(r.context->cwd, "/workspace");
  EXPECT_EQ(r.context->executions, 1u);
  EXPECT_TRUE(r.context->expires_at);
  EXPECT_TRUE(r.context->snapshot_ms);
  EXPECT_EQ(r.language, "kv");

  const CodeContext ctx = sb.create_code_context(
      {.binding = "LUA", .cwd = "/workspace", .env_vars = {{"WHO", "context"}}});
  EXPECT_EQ(ctx.binding, "LUA");
  EXPECT_EQ(ctx.language, "lua");
  EXPECT_EQ(ctx.id.size(), 36u);
  EXPECT_FALSE(ctx.created_at.empty());

  // Callbacks fire after the response: stdout, stderr, results, then the error.
  std::vector<std::string> events;
  r = sb.run_code(
      "print('a') io.stderr:write('b\\n') return os.getenv('WHO')",
      {.context = ctx.id,
       .on_stdout = [&](const std::string& l) { events.push_back("out:" + l); },
       .on_stderr = [&](const std::string& l) { events.push_back("err:" + l); },
       .on_result = [&](const ResultEntry& e) { events.push_back("res:" + *e.text); },
       .on_error = [&](const ExecutionError& e) { events.push_back("error:" + e.name); }});
  EXPECT_EQ(events, (std::vector<std::string>{"out:a", "err:b", "res:\"context\""}));
  events.clear();
  r = sb.run_code("error('x')", {.context = ctx.id, .on_error = [&](const ExecutionError& e) {
                                   events.push_back(e.name);
                                 }});
  EXPECT_TRUE(r.outcome.error);
  EXPECT_EQ(events, (std::vector<std::string>{"LuaError"}));

  // A call env of nullopt unsets the context's variable.
  r = sb.run_code("return os.getenv('WHO') or 'unset'",
                  {.context = ctx.id, .env_vars = {{"WHO", std::nullopt}}});
  EXPECT_EQ(*r.outcome.results[0].text, "\"unset\"");

  const auto list = sb.list_code_contexts();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[1].id, ctx.id);
  sb.delete_code_context(ctx.id);
  EXPECT_EQ(sb.list_code_contexts().size(), 1u);
  EXPECT_THROW(sb.delete_code_context(ctx.id), ContextNotFoundError);

  // A stateless-only binding: no context in the result.
  r = sb.run_code("6 * 7", {.binding = "CALC"});
  EXPECT_EQ(*r.outcome.results[0].text, "42");
  EXPECT_FALSE(r.context);
  EXPECT_FALSE(r.execution_count);
}

TEST_F(Client, EnvVarsAndInfo) {
  auto sb = get_sandbox(d_->url(), "client-2");
  sb.set_env_vars({{"A", "1"}, {"B", "2"}});
  sb.set_env_vars({{"B", std::nullopt}});
  sb.write_file("a.txt", "12345");
  sb.run_code("incr n", {.binding = "KV"});
  const SandboxInfo info = sb.get_info();
  EXPECT_EQ(info.id, "client-2");
  EXPECT_EQ(info.env_vars, (std::map<std::string, std::string>{{"A", "1"}}));
  EXPECT_EQ(info.workspace_entries, 1u);
  EXPECT_EQ(info.workspace_bytes, 5u);
  EXPECT_TRUE(info.file_api);
  EXPECT_TRUE(info.expires_at);
  ASSERT_EQ(info.contexts.size(), 1u);
  EXPECT_EQ(info.contexts[0].engine, "kv 1.0 / sandbox-workers");
  EXPECT_EQ(info.contexts[0].executions, 1u);
  ASSERT_TRUE(info.contexts[0].snapshot);
  EXPECT_GT(info.contexts[0].snapshot->pages, 0u);
  EXPECT_FALSE(info.contexts[0].snapshot->stale);

  sb.destroy();
  const SandboxInfo after = sb.get_info();
  EXPECT_TRUE(after.contexts.empty());
  EXPECT_TRUE(after.env_vars.empty());
  EXPECT_EQ(after.workspace_entries, 0u);
}

TEST_F(Client, EveryFilesOperation) {
  auto sb = get_sandbox(d_->url(), "client-3");
  auto w = sb.write_file("/workspace/notes.md", "# hi");
  EXPECT_TRUE(w.success);
  EXPECT_EQ(w.path, "/workspace/notes.md");
  EXPECT_FALSE(w.timestamp.empty());
  const std::vector<std::uint8_t> bytes = {0, 1, 2, 255};
  sb.mkdir("bin/sub", true);
  sb.write_file_bytes("bin/blob", bytes);
  EXPECT_EQ(sb.read_file_bytes("bin/blob"), bytes);

  auto r = sb.read_file("notes.md");
  EXPECT_EQ(r.content, "# hi");
  EXPECT_EQ(r.mime_type, "text/markdown");
  EXPECT_EQ(r.size, 4u);
  EXPECT_EQ(r.encoding, "utf-8");
  EXPECT_FALSE(r.is_binary);
  r = sb.read_file("bin/blob", "base64");
  EXPECT_EQ(r.content, "AAEC/w==");
  EXPECT_TRUE(r.is_binary);

  auto listing = sb.list_files("/workspace", {.recursive = true});
  std::vector<std::string> paths;
  for (const auto& f : listing.files) paths.push_back(f.relative_path);
  EXPECT_EQ(paths, (std::vector<std::string>{"notes.md", "bin", "bin/sub", "bin/blob"}));
  EXPECT_TRUE(listing.files[1].is_directory());
  EXPECT_EQ(listing.files[3].size, 4u);

  auto renamed = sb.rename_file("notes.md", "bin/notes.md");
  EXPECT_EQ(renamed.new_path, "/workspace/bin/notes.md");
  auto moved = sb.move_file("bin/sub", "sub2");
  EXPECT_EQ(moved.new_path, "/workspace/sub2");
  EXPECT_TRUE(sb.exists("sub2"));
  EXPECT_FALSE(sb.exists("bin/sub"));
  sb.delete_file("bin", true);
  EXPECT_FALSE(sb.exists("bin/blob"));
  EXPECT_TRUE(sb.delete_file("nothing/here", false, true).success);

  // A guest sees the client's files and the client sees the guest's.
  sb.write_file("x.txt", "client");
  EXPECT_EQ(*sb.run_code("read x.txt", {.binding = "KV"}).outcome.results[0].text, "client");
  sb.run_code("write /workspace/y.txt guest", {.binding = "KV"});
  EXPECT_EQ(sb.read_file("y.txt").content, "guest");
}

TEST_F(Client, TypedErrors) {
  auto sb = get_sandbox(d_->url(), "client-4");
  sb.mkdir("dir");
  sb.write_file("f", "x");
  EXPECT_THROW(sb.read_file("missing"), FileNotFoundError);
  EXPECT_THROW(sb.read_file("/etc/passwd"), PermissionDeniedError);
  EXPECT_THROW(sb.read_file("dir"), FileSystemError);  // IS_DIRECTORY
  EXPECT_THROW(sb.write_file("big", std::string(1048577, 'x')), FileTooLargeError);
  EXPECT_THROW(sb.mkdir("dir"), FileSystemError);
  EXPECT_THROW(sb.write_file("f", "x", "latin1"), ValidationFailedError);
  EXPECT_THROW(sb.run_code("1"), ValidationFailedError);  // neither context nor binding
  EXPECT_THROW(sb.run_code("1", {.context = "nope"}), ContextNotFoundError);
  try {
    sb.read_file("missing");
    FAIL();
  } catch (const FileNotFoundError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFileNotFound);
    EXPECT_EQ(e.http_status(), 404);
    EXPECT_EQ(e.response().operation, "file.read");
    EXPECT_EQ(e.response().context.at("errno").as_string(), "ENOENT");
    EXPECT_FALSE(e.response().timestamp.empty());
  }
  EXPECT_THROW(get_sandbox(d_->url(), "-bad"), std::invalid_argument);
  EXPECT_THROW(get_sandbox(d_->url(), "API"), std::invalid_argument);
  EXPECT_EQ(get_sandbox(d_->url(), "API-Box", {.normalize_id = true}).id(), "api-box");
  // An unreachable server: INTERNAL_ERROR with status 0.
  auto offline = get_sandbox("http://127.0.0.1:1", "x");
  try {
    offline.get_info();
    FAIL();
  } catch (const SandboxError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInternalError);
    EXPECT_EQ(e.http_status(), 0);
  }
}

// The client reads an error's kind and retryability from the table of include/sandbox/errors.h.
TEST_F(Client, ErrorsCarryTheirKindAndRetryabilityFromTheTable) {
  auto sandbox = get_sandbox(d_->url(), "kinds");
  try {
    sandbox.read_file("/workspace/missing.txt");
    FAIL();
  } catch (const SandboxError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kFileNotFound);
    EXPECT_FALSE(e.retryable());
  }
  try {
    get_sandbox("http://127.0.0.1:1", "x").get_info();
    FAIL();
  } catch (const SandboxError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnreachable);
    EXPECT_FALSE(e.retryable());
  }
  ErrorResponse busy;
  busy.code = ErrorCode::kInternalError;
  busy.http_status = 429;
  EXPECT_TRUE(SandboxError(busy).retryable());
  busy.http_status = 502;
  EXPECT_EQ(SandboxError(busy).kind(), ErrorKind::kUpstreamFailed);
  EXPECT_FALSE(SandboxError(busy).retryable());
}

TEST_F(Client, LanguagesAndRuntimesThroughSandboxd) {
  const auto langs = list_languages(d_->url());
  ASSERT_EQ(langs.size(), 3u);
  EXPECT_EQ(langs[0].id, "kv");
  EXPECT_EQ(langs[0].binding, "KV");
  EXPECT_TRUE(langs[0].contexts);
  ASSERT_TRUE(langs[0].limits);
  EXPECT_EQ(langs[0].limits->fuel, 10'000'000u);
  EXPECT_FALSE(langs[1].contexts);

  const auto info = probe_runtime(d_->url() + "/runtimes/LUA");
  EXPECT_EQ(info.language, "lua");
  EXPECT_TRUE(info.contexts);
  const auto r = run_code(d_->url() + "/runtimes/CALC", "x + 1", {.env_vars = {{"x", "41"}}});
  EXPECT_EQ(*r.outcome.results[0].text, "42");
}

TEST(ClientAuth, ApiKeysAreSent) {
  TempDir dir;
  SandboxdFixtureOptions o;
  o.db_path = dir.file("db");
  o.api_keys = {"secret"};
  InProcessSandboxd d(o);
  auto anonymous = get_sandbox(d.url(), "k1");
  try {
    anonymous.get_info();
    FAIL();
  } catch (const ValidationFailedError& e) {
    EXPECT_EQ(e.http_status(), 401);
  }
  auto keyed = get_sandbox(d.url(), "k1", {.api_key = "secret"});
  EXPECT_EQ(keyed.get_info().id, "k1");
  EXPECT_EQ(list_languages(d.url(), {.api_key = "secret"}).size(), 2u);
  EXPECT_THROW(probe_runtime(d.url() + "/runtimes/KV"), ValidationFailedError);
  EXPECT_EQ(probe_runtime(d.url() + "/runtimes/KV", "secret").language, "kv");
  EXPECT_EQ(
      *run_code(d.url() + "/runtimes/CALC", "2", {.api_key = "secret"}).outcome.results[0].text,
      "2");
}

// A ClientTransport that relays to the server over its own connection and records what the
// client asked.
struct RelayTransport {
  explicit RelayTransport(const std::string& url) : http(std::make_shared<HttpClient>(url)) {}
  std::shared_ptr<HttpClient> http;
  std::shared_ptr<std::vector<ClientRequest>> seen = std::make_shared<std::vector<ClientRequest>>();
  HttpResponse operator()(const ClientRequest& r) const {
    seen->push_back(r);
    return http->request(r.method, r.path, r.body, r.headers);
  }
};

TEST_F(Client, OverATransportTheSameRequestsAndAnswers) {
  RelayTransport relay(d_->url());
  auto sb = get_sandbox(ClientTransport(relay), "over-transport", {.api_key = "k"});
  EXPECT_EQ(sb.write_file("a.txt", "hello").path, "/workspace/a.txt");
  ASSERT_EQ(relay.seen->size(), 1u);
  EXPECT_EQ(relay.seen->at(0).method, "POST");
  EXPECT_EQ(relay.seen->at(0).path, "/sandboxes/over-transport/files");
  EXPECT_NE(relay.seen->at(0).body.find(R"("op":"write")"), std::string::npos);
  const auto& headers = relay.seen->at(0).headers;
  EXPECT_NE(std::find(headers.begin(), headers.end(),
                      std::pair<std::string, std::string>("authorization", "Bearer k")),
            headers.end());
  EXPECT_EQ(sb.read_file("a.txt").content, "hello");
  EXPECT_THROW(sb.read_file("missing.txt"), FileNotFoundError);

  // Nothing streams over a transport: the text callbacks get the output once the answer is in.
  std::string out;
  const auto r =
      sb.run_code("print('x') print('y') return 2",
                  {.binding = "LUA", .on_stdout_text = [&](std::string_view t) { out += t; }});
  EXPECT_EQ(*r.outcome.results[0].text, "2");
  EXPECT_EQ(out, "x\ny\n");

  const auto langs = list_languages(ClientTransport(relay));
  ASSERT_EQ(langs.size(), 3u);
  EXPECT_EQ(langs[2].binding, "LUA");
  std::string streamed;
  const auto stateless = run_code_on_server(
      ClientTransport(relay), "calc", "x + 1",
      {.env_vars = {{"x", "41"}}, .on_stdout_text = [&](std::string_view t) { streamed += t; }});
  EXPECT_EQ(*stateless.outcome.results[0].text, "42");
  EXPECT_EQ(streamed, "");

  // An invalid language id is refused before anything is sent.
  const std::size_t sent = relay.seen->size();
  EXPECT_THROW(run_code_on_server(ClientTransport(relay), "../x", "1"), ValidationFailedError);
  EXPECT_EQ(relay.seen->size(), sent);
}

TEST(ClientTransportFailures, AThrowingTransportIsAnUnreachableServer) {
  const ClientTransport refused = [](const ClientRequest&) -> HttpResponse {
    throw std::runtime_error("connection refused");
  };
  try {
    static_cast<void>(get_sandbox(refused, "s").get_info());
    FAIL();
  } catch (const SandboxError& e) {
    EXPECT_EQ(e.http_status(), 0);
    EXPECT_EQ(e.kind(), ErrorKind::kUnreachable);
    EXPECT_STREQ(e.what(), "connection refused");
  }
  // A transport's own SandboxError passes as it is.
  const ClientTransport typed = [](const ClientRequest&) -> HttpResponse {
    ErrorResponse r;
    r.code = ErrorCode::kContextNotFound;
    r.message = "gone";
    r.http_status = 404;
    throw ContextNotFoundError(r);
  };
  EXPECT_THROW(static_cast<void>(list_languages(typed)), ContextNotFoundError);
  // An answer that is not JSON is quoted, as valid UTF-8.
  const ClientTransport html = [](const ClientRequest&) {
    return HttpResponse::text(502, "<html>\xbc</html>");
  };
  try {
    static_cast<void>(list_languages(html));
    FAIL();
  } catch (const SandboxError& e) {
    EXPECT_STREQ(e.what(), "HTTP 502: response is not JSON: <html>\xEF\xBF\xBD</html>");
  }
  EXPECT_THROW(static_cast<void>(get_sandbox(ClientTransport(), "s")), std::invalid_argument);
}

}  // namespace
}  // namespace sandbox::test

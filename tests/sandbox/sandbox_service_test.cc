// The Sandbox actor through SandboxService (no HTTP): contexts, the execute flow, env merge, the
// stateless fallback, durability across a restart, idle expiry with a ManualClock, the File API
// switch, and per-id serialization (docs/sandbox-api.md, docs/protocol.md#idle-expiry).
#include <future>
#include <thread>

#include "sandbox/interpreter_key.h"
#include "sandbox_test_fixture.h"

namespace sandbox::test {
namespace {

class SandboxService_ : public SandboxFixture {
 protected:
  void SetUp() override { start(); }
};

TEST_F(SandboxService_, CounterInTheDefaultContextSurvivesARestart) {
  const auto first = post_ok("s1", "/execute", {{"code", "incr n"}, {"binding", "KV"}});
  EXPECT_EQ(result_text(first), "1");
  EXPECT_EQ(first.at("executionCount").as_int64(), 1);
  const std::string context_id(first.at("context").at("id").as_string());
  EXPECT_EQ(first.at("context").at("cwd").as_string(), "/workspace");
  EXPECT_TRUE(first.at("context").as_object().contains("expiresAt"));
  EXPECT_FALSE(first.contains("workspace"));

  const auto second = post_ok("s1", "/execute", {{"code", "incr n"}, {"binding", "KV"}});
  EXPECT_EQ(result_text(second), "2");
  EXPECT_EQ(second.at("context").at("id").as_string(), context_id);
  EXPECT_EQ(second.at("executionCount").as_int64(), 2);

  restart();
  const auto third = post_ok("s1", "/execute", {{"code", "incr n"}, {"contextId", context_id}});
  EXPECT_EQ(result_text(third), "3");
  EXPECT_EQ(third.at("executionCount").as_int64(), 3);

  const auto info = get_ok("s1");
  ASSERT_EQ(info.at("contexts").as_array().size(), 1u);
  const auto& ctx = info.at("contexts").as_array()[0].as_object();
  EXPECT_EQ(ctx.at("executions").as_int64(), 3);
  EXPECT_EQ(ctx.at("engine").as_string(), "kv 1.0 / sandbox-workers");
  ASSERT_TRUE(ctx.at("snapshot").is_object());
  EXPECT_GT(ctx.at("snapshot").at("pages").as_int64(), 0);
  EXPECT_FALSE(ctx.contains("envVars"));
}

TEST_F(SandboxService_, TheDefaultContextIsTheOldestOfItsBinding) {
  const auto a = post_ok("s1", "/contexts", {{"binding", "KV"}}, 201);
  clock_.advance(10);
  const auto b = post_ok("s1", "/contexts", {{"binding", "KV"}, {"cwd", "sub/dir"}}, 201);
  EXPECT_EQ(a.at("language").as_string(), "kv");
  EXPECT_EQ(b.at("cwd").as_string(), "/workspace/sub/dir");
  for (const char* key : {"id", "binding", "language", "cwd", "createdAt", "lastUsed"}) {
    EXPECT_TRUE(a.contains(key)) << key;
  }

  EXPECT_EQ(run("s1", "incr n", "KV"), "1");
  const auto in_b = post_ok("s1", "/execute", {{"code", "incr n"}, {"contextId", b.at("id")}});
  EXPECT_EQ(result_text(in_b), "1");  // b has its own state
  const auto in_a = post_ok("s1", "/execute", {{"code", "incr n"}, {"contextId", a.at("id")}});
  EXPECT_EQ(result_text(in_a), "2");
  EXPECT_EQ(in_a.at("context").at("id"), a.at("id"));

  const auto list = get_ok("s1", "/contexts");
  ASSERT_EQ(list.at("contexts").as_array().size(), 2u);
  EXPECT_EQ(list.at("contexts").as_array()[0].at("id"), a.at("id"));
  EXPECT_EQ(list.at("contexts").as_array()[1].at("id"), b.at("id"));
}

TEST_F(SandboxService_, TheNinthContextIsRefused) {
  for (int i = 0; i < 8; ++i) post_ok("s1", "/contexts", {{"binding", "KV"}}, 201);
  HttpResponse r = post("s1", "/contexts", {{"binding", "KV"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: Cannot create more than 8 code contexts");
  // A binding without a default context cannot get one either; a stateless binding still runs.
  start({}, {"kv", "calc", "lua"});
  r = post("s1", "/execute", {{"code", "return 1"}, {"binding", "LUA"}});
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: Cannot create more than 8 code contexts");
  EXPECT_EQ(run("s1", "1 + 1", "CALC"), "2");
  EXPECT_EQ(get_ok("s1", "/contexts").at("contexts").as_array().size(), 8u);
}

TEST_F(SandboxService_, AStatelessOnlyBindingFallsBackToStatelessExecution) {
  post_ok("s1", "/env", {{"envVars", {{"x", "5"}, {"y", "2"}}}});
  const auto r = post_ok("s1", "/execute", {{"code", "x * y"}, {"binding", "CALC"}});
  EXPECT_EQ(result_text(r), "10");
  EXPECT_FALSE(r.contains("context"));
  EXPECT_FALSE(r.contains("executionCount"));
  EXPECT_EQ(r.at("language").as_string(), "calc");
  // Call env overrides, null unsets: an unset variable is a guest error (200).
  const auto unset =
      post_ok("s1", "/execute",
              {{"code", "x * y"}, {"binding", "CALC"}, {"envVars", {{"x", "21"}, {"y", nullptr}}}});
  ASSERT_TRUE(unset.contains("error")) << boost::json::serialize(unset);
  EXPECT_EQ(
      result_text(post_ok("s1", "/execute",
                          {{"code", "x * y"}, {"binding", "CALC"}, {"envVars", {{"x", "21"}}}})),
      "42");
  // No context is ever registered, and creating one is refused.
  EXPECT_TRUE(get_ok("s1", "/contexts").at("contexts").as_array().empty());
  const HttpResponse refused = post("s1", "/contexts", {{"binding", "CALC"}});
  EXPECT_EQ(error_of(refused),
            "VALIDATION_FAILED: Code contexts are not supported by binding 'CALC' (calc)");
}

TEST_F(SandboxService_, EnvVarsMergeSandboxThenContextThenCallWithNullUnsetting) {
  start({}, {"lua"});
  post_ok("s1", "/env", {{"envVars", {{"A", "s1"}, {"B", "s2"}, {"C", "s3"}, {"GONE", "x"}}}});
  post_ok("s1", "/env", {{"envVars", {{"GONE", nullptr}}}});
  const auto ctx = post_ok("s1", "/contexts",
                           {{"binding", "LUA"}, {"envVars", {{"B", "c2"}, {"C", "c3"}}}}, 201);
  const std::string code =
      "local t = {} for _, k in ipairs({'A','B','C','D','GONE'}) do "
      "t[#t+1] = os.getenv(k) or 'nil' end return table.concat(t, ',')";
  const auto r = post_ok(
      "s1", "/execute",
      {{"code", code}, {"contextId", ctx.at("id")}, {"envVars", {{"C", nullptr}, {"D", "d4"}}}});
  EXPECT_EQ(result_text(r), "\"s1,c2,nil,d4,nil\"");
  // The call's vars are not stored; the call can override the context's.
  const auto again = post_ok(
      "s1", "/execute", {{"code", code}, {"contextId", ctx.at("id")}, {"envVars", {{"B", "b"}}}});
  EXPECT_EQ(result_text(again), "\"s1,b,c3,nil,nil\"");
  const auto info = get_ok("s1");
  EXPECT_EQ(boost::json::serialize(info.at("envVars")), R"({"A":"s1","B":"s2","C":"s3"})");
}

TEST_F(SandboxService_, FilesWrittenByTheApiAreReadByGuestsAndTheOtherWayRound) {
  post_ok("s1", "/files", {{"op", "write"}, {"path", "in.txt"}, {"content", "from the api"}});
  post_ok("s1", "/files", {{"op", "mkdir"}, {"path", "/workspace/out"}});
  EXPECT_EQ(run("s1", "read /workspace/in.txt", "KV"), "from the api");
  run("s1", "write /workspace/out/result.txt written by the guest", "KV");
  auto read = post_ok("s1", "/files", {{"op", "read"}, {"path", "/workspace/out/result.txt"}});
  EXPECT_EQ(read.at("content").as_string(), "written by the guest");

  // The API changes a file the mirror already holds: the next execution sees the new content.
  post_ok("s1", "/files", {{"op", "write"}, {"path", "in.txt"}, {"content", "changed"}});
  EXPECT_EQ(run("s1", "read /workspace/in.txt", "KV"), "changed");
  // A guest error rolls its file changes back.
  const auto failed = post_ok(
      "s1", "/execute", {{"code", "write /workspace/never.txt x\nfail boom"}, {"binding", "KV"}});
  EXPECT_TRUE(failed.contains("error"));
  EXPECT_FALSE(
      post_ok("s1", "/files", {{"op", "exists"}, {"path", "never.txt"}}).at("exists").as_bool());
  // Deleting through the API removes the file from the guest's view.
  post_ok("s1", "/files", {{"op", "delete"}, {"path", "in.txt"}});
  const auto gone =
      post_ok("s1", "/execute", {{"code", "read /workspace/in.txt"}, {"binding", "KV"}});
  ASSERT_TRUE(gone.contains("error"));
  EXPECT_EQ(gone.at("error").at("name").as_string(), "OSError");

  restart();
  read = post_ok("s1", "/files", {{"op", "read"}, {"path", "out/result.txt"}});
  EXPECT_EQ(read.at("content").as_string(), "written by the guest");
  EXPECT_EQ(run("s1", "read out/result.txt", "KV"), "written by the guest");
  const auto info = get_ok("s1");
  EXPECT_EQ(info.at("workspace").at("files").as_int64(), 2);  // out/ and out/result.txt
  EXPECT_EQ(info.at("workspace").at("bytes").as_int64(), 20);
}

TEST_F(SandboxService_, TheFileApiCanBeDisabled) {
  start(SandboxOptions{.file_api = false});
  HttpResponse r = post("s1", "/files", {{"op", "write"}, {"path", "a.txt"}, {"content", "x"}});
  EXPECT_EQ(r.status, 403);
  const auto body = json_of(r);
  EXPECT_EQ(body.at("code").as_string(), "NOT_SUPPORTED");
  EXPECT_EQ(body.at("message").as_string(),
            "The File API is disabled for this sandbox (SANDBOX_FILE_API=disabled)");
  EXPECT_EQ(boost::json::serialize(body.at("context")), R"({"feature":"files"})");
  // Guests see no /workspace: writes fail, the context still works.
  const auto w =
      post_ok("s1", "/execute", {{"code", "write /workspace/a.txt x"}, {"binding", "KV"}});
  ASSERT_TRUE(w.contains("error"));
  EXPECT_EQ(w.at("error").at("name").as_string(), "OSError");
  EXPECT_EQ(run("s1", "incr n", "KV"), "1");
  const auto info = get_ok("s1");
  EXPECT_FALSE(info.at("fileApi").as_bool());
  EXPECT_EQ(info.at("workspace").at("files").as_int64(), 0);
}

TEST_F(SandboxService_, IdleSandboxesExpireAfterTheTtl) {
  start(SandboxOptions{.idle_ttl_ms = 1000});
  const std::int64_t t0 = clock_.now_ms();
  EXPECT_EQ(run("s1", "incr n", "KV"), "1");
  post_ok("s1", "/files", {{"op", "write"}, {"path", "a.txt"}, {"content", "x"}});
  EXPECT_EQ(get_ok("s1").at("expiresAt").as_int64(), t0 + 1000);
  EXPECT_EQ(service_->next_alarm(), t0 + 1000);

  clock_.advance(500);
  EXPECT_EQ(service_->run_due_alarms(), 0);
  EXPECT_EQ(run("s1", "incr n", "KV"), "2");  // activity: re-armed at t0 + 1500
  EXPECT_EQ(get_ok("s1").at("expiresAt").as_int64(), t0 + 1500);

  clock_.advance(999);
  EXPECT_EQ(service_->run_due_alarms(), 0);
  clock_.advance(1);
  EXPECT_EQ(service_->run_due_alarms(), 1);
  EXPECT_EQ(service_->next_alarm(), std::nullopt);

  const auto info = get_ok("s1");
  EXPECT_TRUE(info.at("contexts").as_array().empty());
  EXPECT_EQ(info.at("workspace").at("files").as_int64(), 0);
  EXPECT_EQ(run("s1", "incr n", "KV"), "1");  // a new context, fresh state
}

TEST_F(SandboxService_, ExpiryCanBeTurnedOff) {
  start(SandboxOptions{.idle_ttl_ms = 0});
  EXPECT_EQ(run("s1", "incr n", "KV"), "1");
  EXPECT_TRUE(get_ok("s1").at("expiresAt").is_null());
  EXPECT_EQ(service_->next_alarm(), std::nullopt);
  clock_.advance(10LL * 86'400'000);
  EXPECT_EQ(service_->run_due_alarms(), 0);
  EXPECT_EQ(run("s1", "incr n", "KV"), "2");
}

TEST_F(SandboxService_, DeleteWipesTheSandboxAndItsInterpreterState) {
  EXPECT_EQ(run("s1", "incr n", "KV"), "1");
  post_ok("s1", "/files", {{"op", "write"}, {"path", "a.txt"}, {"content", "x"}});
  const auto meta = storage_->sandboxes().get_meta("s1");
  ASSERT_TRUE(meta);
  const std::string key = interpreter_key(meta->at("lifetime").as_string(), "KV");
  EXPECT_EQ(storage_->interpreters().list_contexts(key).size(), 1u);

  EXPECT_EQ(json_of(call("s1", "DELETE", "/")).at("success").as_bool(), true);
  EXPECT_TRUE(storage_->interpreters().list_contexts(key).empty());
  EXPECT_FALSE(storage_->sandboxes().get_meta("s1"));
  EXPECT_TRUE(storage_->sandboxes().load_files("s1").empty());
  EXPECT_EQ(run("s1", "incr n", "KV"), "1");
  // Deleting a sandbox that never existed is fine too.
  EXPECT_EQ(call("never-used", "DELETE", "/").status, 200);
}

TEST_F(SandboxService_, AContextTheRuntimeLostIsDroppedFromTheRegistry) {
  const auto ctx = post_ok("s1", "/contexts", {{"binding", "KV"}}, 201);
  const auto meta = storage_->sandboxes().get_meta("s1");
  const std::string key = interpreter_key(meta->at("lifetime").as_string(), "KV");
  // The runtime forgets the key (its own idle expiry would do this).
  ASSERT_EQ(bindings_->find("KV")->fetch("DELETE", "/interpreters/" + key).status, 200);

  const HttpResponse r = post("s1", "/execute", {{"code", "incr n"}, {"contextId", ctx.at("id")}});
  EXPECT_EQ(r.status, 404);
  const auto body = json_of(r);
  EXPECT_EQ(body.at("code").as_string(), "CONTEXT_NOT_FOUND");
  EXPECT_EQ(body.at("context").at("contextId"), ctx.at("id"));
  EXPECT_TRUE(get_ok("s1", "/contexts").at("contexts").as_array().empty());
}

TEST_F(SandboxService_, DeletingContexts) {
  const auto ctx = post_ok("s1", "/contexts", {{"binding", "KV"}}, 201);
  const std::string id(ctx.at("id").as_string());
  EXPECT_EQ(json_of(call("s1", "DELETE", "/contexts/" + id)).at("success").as_bool(), true);
  const HttpResponse again = call("s1", "DELETE", "/contexts/" + id);
  EXPECT_EQ(again.status, 404);
  EXPECT_EQ(error_of(again), "CONTEXT_NOT_FOUND: Code context '" + id + "' not found");
  EXPECT_EQ(json_of(again).at("context").at("contextId").as_string(), id);
  // URL-decoded.
  EXPECT_EQ(error_of(call("s1", "DELETE", "/contexts/a%20b")),
            "CONTEXT_NOT_FOUND: Code context 'a b' not found");
}

TEST_F(SandboxService_, ExecuteValidation) {
  const auto error = [&](const boost::json::object& body) {
    return error_of(post("s1", "/execute", body));
  };
  EXPECT_EQ(error({{"code", "1"}, {"binding", "KV"}, {"cwd", "/workspace"}}),
            "VALIDATION_FAILED: cwd is a context property; pass it to createCodeContext");
  EXPECT_EQ(error({{"code", "  \n"}, {"binding", "KV"}}),
            "VALIDATION_FAILED: Non-empty code is required");
  EXPECT_EQ(error({{"binding", "KV"}}), "VALIDATION_FAILED: Non-empty code is required");
  const HttpResponse big =
      post("s1", "/execute", {{"code", std::string(65537, 'x')}, {"binding", "KV"}});
  EXPECT_EQ(big.status, 413);
  EXPECT_EQ(error_of(big), "VALIDATION_FAILED: Code exceeds 64 KiB");
  EXPECT_EQ(error({{"code", "1"}, {"binding", "KV"}, {"envVars", "x"}}),
            "VALIDATION_FAILED: envVars must be an object");
  EXPECT_EQ(error({{"code", "1"}, {"binding", "KV"}, {"envVars", {{"1A", "x"}}}}),
            "VALIDATION_FAILED: Invalid envVars key: 1A");
  EXPECT_EQ(error({{"code", "1"}, {"binding", "KV"}, {"envVars", {{"A", 1}}}}),
            "VALIDATION_FAILED: envVars values must be strings");
  EXPECT_EQ(error({{"code", "1"}, {"contextId", ""}}),
            "VALIDATION_FAILED: contextId must be a non-empty string");
  EXPECT_EQ(error({{"code", "1"}, {"binding", 3}}),
            "VALIDATION_FAILED: binding must be a non-empty string");
  EXPECT_EQ(error({{"code", "1"}}), "VALIDATION_FAILED: Pass a context or a binding");
  EXPECT_EQ(error({{"code", "1"}, {"binding", "NOPE"}}),
            "VALIDATION_FAILED: Unknown binding 'NOPE'");
  const HttpResponse missing = post("s1", "/execute", {{"code", "1"}, {"contextId", "nope"}});
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(error_of(missing), "CONTEXT_NOT_FOUND: Code context 'nope' not found");
  EXPECT_EQ(error_of(call("s1", "POST", "/execute", "{")), "VALIDATION_FAILED: Invalid JSON");
  EXPECT_EQ(error_of(call("s1", "POST", "/execute", "[1]")),
            "VALIDATION_FAILED: Expected an object");
  // Nothing above created the sandbox's meta.
  EXPECT_FALSE(storage_->sandboxes().get_meta("s1"));
}

TEST_F(SandboxService_, ContextAndEnvValidation) {
  const auto error = [&](const std::string& path, const boost::json::object& body) {
    return error_of(post("s1", path, body));
  };
  EXPECT_EQ(error("/contexts", {}), "VALIDATION_FAILED: binding is required");
  EXPECT_EQ(error("/contexts", {{"binding", ""}}), "VALIDATION_FAILED: binding is required");
  EXPECT_EQ(error("/contexts", {{"binding", "KV"}, {"cwd", ""}}),
            "VALIDATION_FAILED: cwd must be a non-empty string");
  EXPECT_EQ(error("/contexts", {{"binding", "KV"}, {"cwd", "/etc"}}),
            "VALIDATION_FAILED: Path escapes /workspace: /etc");
  EXPECT_EQ(error("/contexts", {{"binding", "KV"}, {"envVars", {{"A", nullptr}}}}),
            "VALIDATION_FAILED: envVars values must be strings");
  EXPECT_EQ(error("/contexts", {{"binding", "KV"}, {"envVars", {{"A-B", "x"}}}}),
            "VALIDATION_FAILED: Invalid envVars key: A-B");
  EXPECT_EQ(error("/contexts", {{"binding", "NOPE"}}), "VALIDATION_FAILED: Unknown binding 'NOPE'");
  EXPECT_EQ(error("/env", {}), "VALIDATION_FAILED: envVars is required");
  EXPECT_EQ(error("/env", {{"envVars", {{"A", 2}}}}),
            "VALIDATION_FAILED: envVars values must be strings");
  EXPECT_EQ(error("/env", {{"envVars", {{"", "x"}}}}), "VALIDATION_FAILED: Invalid envVars key: ");
  EXPECT_EQ(error("/env", {{"envVars", 1}}), "VALIDATION_FAILED: envVars must be an object");
}

TEST_F(SandboxService_, SandboxIdsAreValidated) {
  const auto error = [&](const std::string& id) { return error_of(call(id, "GET", "/")); };
  EXPECT_EQ(error("-abc"),
            "VALIDATION_FAILED: Invalid sandbox id \"-abc\": cannot start or end with a hyphen");
  EXPECT_EQ(error("Admin"),
            "VALIDATION_FAILED: Invalid sandbox id \"Admin\": 'Admin' is a reserved name");
  EXPECT_EQ(error(std::string(64, 'a')), "VALIDATION_FAILED: Invalid sandbox id \"" +
                                             std::string(64, 'a') +
                                             "\": must match ^[A-Za-z0-9._-]{1,63}$");
  EXPECT_EQ(error("a b"),
            "VALIDATION_FAILED: Invalid sandbox id \"a b\": must match ^[A-Za-z0-9._-]{1,63}$");
  EXPECT_EQ(call(std::string(63, 'a'), "GET", "/").status, 200);
  EXPECT_EQ(call("a.b_c-1", "GET", "/").status, 200);
}

TEST_F(SandboxService_, UnknownRoutesAndMethods) {
  EXPECT_EQ(error_of(call("s1", "GET", "/nope")), "VALIDATION_FAILED: Not found");
  EXPECT_EQ(call("s1", "GET", "/nope").status, 404);
  const HttpResponse r = call("s1", "GET", "/execute");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.header("allow"), "POST");
  EXPECT_EQ(call("s1", "PUT", "/").header("allow"), "GET, DELETE");
  EXPECT_EQ(call("s1", "POST", "/contexts/x").header("allow"), "DELETE");
}

// A binding that blocks its executions until released, to observe serialization.
class BlockingBinding final : public Binding {
 public:
  BlockingBinding() : Binding("BLOCK") {}
  HttpResponse fetch(const std::string& method, const std::string& path,
                     const std::string&) override {
    if (method == "GET" && path == "/interpreter") {
      return HttpResponse::json(
          200, R"({"language":"block","engine":"block 1","contexts":true,"protocol":1})");
    }
    if (method == "POST" && path.ends_with("/contexts")) return HttpResponse::json(201, "{}");
    return HttpResponse::json(200, R"({"success":true})");
  }
  InterpreterExecuteResult execute_in_context(const std::string&,
                                              const InterpreterExecuteArgs& args,
                                              const GetWorkspaceFiles&) override {
    if (args.code == "block") {
      entered.set_value();
      release.get_future().wait();
    }
    InterpreterExecuteResponse r;
    r.result.code = args.code;
    r.result.language = "block";
    r.result.outcome.results.push_back(ResultEntry::of_text(args.code));
    r.context.id = args.context_id;
    r.context.cwd = "/workspace";
    return r;
  }
  std::string location() const override { return "test"; }

  std::promise<void> entered;
  std::promise<void> release;
};

TEST_F(SandboxService_, CallsOnDifferentSandboxesRunInParallelAndOnOneSandboxInOrder) {
  BlockingBinding* blocking = nullptr;
  start({}, {"kv"}, [&](BindingSet& set) {
    auto b = std::make_unique<BlockingBinding>();
    blocking = b.get();
    set.add(std::move(b));
  });
  auto blocked = std::async(std::launch::async, [&] { return run("s1", "block", "BLOCK"); });
  blocking->entered.get_future().wait();
  // Another sandbox is not held up by s1's call.
  EXPECT_EQ(run("s2", "quick", "BLOCK"), "quick");
  // The same sandbox waits for it.
  auto queued = std::async(std::launch::async, [&] { return run("s1", "after", "BLOCK"); });
  EXPECT_EQ(queued.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout);
  blocking->release.set_value();
  EXPECT_EQ(blocked.get(), "block");
  EXPECT_EQ(queued.get(), "after");
}

// A binding whose runtime answers whatever the test says.
class ScriptedBinding final : public Binding {
 public:
  ScriptedBinding() : Binding("SCRIPTED") {}
  HttpResponse fetch(const std::string& method, const std::string& path,
                     const std::string&) override {
    if (throw_on_fetch) throw BindingError("connection refused");
    if (method == "GET" && path == "/interpreter") return probe;
    return HttpResponse::json(201, "{}");
  }
  InterpreterExecuteResult execute_in_context(const std::string&, const InterpreterExecuteArgs&,
                                              const GetWorkspaceFiles&) override {
    if (throw_on_execute) throw BindingError("connection reset");
    return execute_answer;
  }
  std::string location() const override { return "test"; }

  HttpResponse probe = HttpResponse::json(200, R"({"language":"x","engine":"x","contexts":true})");
  bool throw_on_fetch = false;
  bool throw_on_execute = false;
  InterpreterExecuteResult execute_answer;
};

TEST_F(SandboxService_, BindingProbeAndTransportFailures) {
  ScriptedBinding* scripted = nullptr;
  start({}, {"kv"}, [&](BindingSet& set) {
    auto b = std::make_unique<ScriptedBinding>();
    scripted = b.get();
    set.add(std::move(b));
  });
  const auto create = [&] { return error_of(post("s1", "/contexts", {{"binding", "SCRIPTED"}})); };
  scripted->probe = HttpResponse::text(200, "hello");
  EXPECT_EQ(create(),
            "VALIDATION_FAILED: Binding 'SCRIPTED' is not a sandbox-workers runtime Worker");
  scripted->probe = HttpResponse::json(200, R"({"language":"x","engine":"x","contexts":"yes"})");
  EXPECT_EQ(create(),
            "VALIDATION_FAILED: Binding 'SCRIPTED' is not a sandbox-workers runtime Worker");
  scripted->probe =
      HttpResponse::json(200, R"({"language":"x","engine":"x","contexts":true,"protocol":2})");
  EXPECT_EQ(create(),
            "VALIDATION_FAILED: Binding 'SCRIPTED' speaks interpreter protocol 2; this caller "
            "supports 1");
  scripted->throw_on_fetch = true;
  EXPECT_EQ(create(),
            "VALIDATION_FAILED: Binding 'SCRIPTED' is not a sandbox-workers runtime Worker");

  scripted->throw_on_fetch = false;
  scripted->probe = HttpResponse::json(200, R"({"language":"x","engine":"x","contexts":true})");
  const auto ctx = post_ok("s1", "/contexts", {{"binding", "SCRIPTED"}}, 201);
  scripted->throw_on_execute = true;
  HttpResponse r = post("s1", "/execute", {{"code", "1"}, {"contextId", ctx.at("id")}});
  EXPECT_EQ(r.status, 502);
  EXPECT_EQ(error_of(r), "INTERNAL_ERROR: Binding 'SCRIPTED' failed: connection reset");
  // An error the runtime answers is relayed with its status and body.
  scripted->throw_on_execute = false;
  ErrorResponse relayed;
  relayed.code = ErrorCode::kValidationFailed;
  relayed.message = "teapot";
  relayed.http_status = 418;
  scripted->execute_answer = InterpreterCallError{418, relayed};
  r = post("s1", "/execute", {{"code", "1"}, {"contextId", ctx.at("id")}});
  EXPECT_EQ(r.status, 418);
  EXPECT_EQ(error_of(r), "VALIDATION_FAILED: teapot");
  // The context is kept after those failures.
  EXPECT_EQ(get_ok("s1", "/contexts").at("contexts").as_array().size(), 1u);
}

}  // namespace
}  // namespace sandbox::test

#include <boost/json/parse.hpp>

#include <sandbox/interpreter.h>
#include <sandbox/testing.h>

#include "interpreter/over_store.h"
#include "storage/sqlite/sqlite_stores.h"

namespace sandbox::testing {
namespace {

[[noreturn]] void fail(int step, const std::string& assertion) {
  throw ConformanceFailure(step, assertion);
}

// An optional is tested with `if (!x) fail(...)` instead: clang-tidy's optional check sees that
// fail() does not return, not that check() throws.
void check(bool ok, int step, const std::string& assertion) {
  if (!ok) fail(step, assertion);
}

EngineOutcome run_step(const Engine& engine, const std::string& code, int step) {
  try {
    return engine.run(ExecutionRequest{code, {}});
  } catch (const std::exception& e) {
    throw ConformanceFailure(step, "run() threw for `" + code + "`: " + e.what() +
                                       " (guest errors must be returned as outcome.error)");
  }
}

std::string describe(const ExecutionError& e) { return e.name + ": " + e.message; }

// The stateless steps (docs/build-your-own-runtime.md#running-the-conformance-suite): the stateless
// contract and the engine's identity.
void run_stateless_steps(const Engine& engine, const ConformancePrograms& programs) {
  check(static_cast<bool>(engine.run), 1, "engine.run must be set");
  const EngineOutcome simple = run_step(engine, programs.simple.code, 1);
  check(!simple.error, 1,
        "`" + programs.simple.code + "` must run without error, got " +
            (simple.error ? describe(*simple.error) : std::string()));
  if (programs.simple.expect_result_text) {
    const std::string want = *programs.simple.expect_result_text;
    const std::string no_text =
        "`" + programs.simple.code + "` must yield a text result '" + want + "'";
    check(!simple.results.empty(), 1, no_text);
    const std::optional<std::string>& text = simple.results[0].text;
    if (!text) fail(1, no_text);
    check(*text == want, 1,
          "`" + programs.simple.code + "` must yield '" + want + "', got '" + *text + "'");
  }
  for (const auto& r : simple.results) {
    check(r.text.has_value() != r.json.has_value(), 1,
          "each result entry must carry exactly one of text or json");
  }

  const EngineOutcome error = run_step(engine, programs.error.code, 2);
  if (!error.error) fail(2, "`" + programs.error.code + "` must return outcome.error");
  check(!error.error->name.empty(), 2, "outcome.error.name must not be empty");

  check(!engine.language.empty(), 3, "language must not be empty");
  check(!engine.engine_name.empty(), 3, "engine_name must not be empty");
  check(!engine.build.empty(), 3, "build must not be empty");
  check(engine.limits.memory_bytes > 0, 3, "limits.memory_bytes must be > 0");
  check(engine.limits.code_bytes > 0, 3, "limits.code_bytes must be > 0");
  check(engine.limits.request_bytes > 0, 3, "limits.request_bytes must be > 0");
}

// A caller-side workspace for the session steps: the interpreter pulls from it.
struct FakeCaller {
  SystemClock clock;
  Workspace workspace{clock};

  WorkspaceManifestArgs manifest() const {
    const Manifest m = workspace.manifest();
    return {m.dirs, m.files, false};
  }
  GetWorkspaceFiles get_files() {
    return [this](const std::vector<std::string>& paths) {
      std::vector<WorkspaceFileEntry> out;
      for (const auto& p : paths) {
        if (!workspace.exists(p)) continue;
        auto [data, updated] = workspace.read_bytes(p);
        out.push_back({p, std::move(data), updated});
      }
      return out;
    };
  }
};

int status_of(const HttpResponse& r) { return r.status; }

std::string message_of(const HttpResponse& r) {
  boost::system::error_code ec;
  const auto v = boost::json::parse(r.body, ec);
  if (ec || !v.is_object()) return r.body;
  const auto* m = v.get_object().if_contains("message");
  return m && m->is_string() ? std::string(m->get_string()) : r.body;
}

void create_context(InterpreterServer& server, const std::string& key, const std::string& id,
                    int step) {
  const HttpResponse r = server.handle(key, "POST", "/contexts", "{\"id\":\"" + id + "\"}");
  check(status_of(r) == 201, step,
        "POST /contexts {id: " + id + "} must answer 201, got " + std::to_string(r.status) + " " +
            message_of(r));
  const auto v = boost::json::parse(r.body);
  check(v.at("id") == id.c_str(), step, "POST /contexts must echo id " + id);
}

InterpreterExecuteResponse execute_ok(InterpreterServer& server, const std::string& key,
                                      FakeCaller& caller, const std::string& code, int step) {
  InterpreterExecuteResult r;
  try {
    r = server.execute_in_context(key, {"ctx-1", code, {}, caller.manifest()}, caller.get_files());
  } catch (const std::exception& e) {
    throw ConformanceFailure(step, "execute_in_context threw for `" + code + "`: " + e.what());
  }
  if (auto* e = std::get_if<InterpreterCallError>(&r)) {
    throw ConformanceFailure(step, "execute_in_context(`" + code + "`) must succeed, got " +
                                       std::to_string(e->status) + " " + e->body.message);
  }
  return std::get<InterpreterExecuteResponse>(std::move(r));
}

std::string result_text(const InterpreterExecuteResponse& r) {
  if (r.result.outcome.results.empty()) return "<no text>";
  return r.result.outcome.results[0].text.value_or("<no text>");
}

// The context steps (docs/build-your-own-runtime.md#running-the-conformance-suite): contexts, state
// across calls and across a simulated eviction (a second InterpreterServer over the same database),
// rollback on a guest error, deletion, wipe.
void run_session_steps(const Engine& engine, const ConformanceOptions& options,
                       const StatefulProgram& stateful) {
  const std::string& key = options.key;
  SqliteStorage storage(":memory:");
  SystemClock clock;
  FakeCaller caller;
  const InterpreterServerOptions server_options{.idle_ttl_ms = 0, .max_resident_instances = 1};

  auto server1 = make_interpreter_server(engine, storage.interpreters(), clock, server_options);
  create_context(*server1, key, "ctx-1", 6);

  const auto define = execute_ok(*server1, key, caller, stateful.define, 7);
  check(!define.result.outcome.error, 7,
        "`" + stateful.define + "` must run without error, got " +
            (define.result.outcome.error ? describe(*define.result.outcome.error) : ""));

  const auto use = execute_ok(*server1, key, caller, stateful.use, 8);
  check(!use.result.outcome.error, 8, "`" + stateful.use + "` must run without error");
  check(result_text(use) == stateful.expect_result_text, 8,
        "`" + stateful.use + "` must yield '" + stateful.expect_result_text + "', got '" +
            result_text(use) + "'");
  if (!use.context.snapshot) fail(8, "a clean round must leave a snapshot");
  check(use.context.snapshot->build == engine.build, 8,
        "the snapshot's build must be the engine's build");

  server1.reset();  // simulated eviction: no resident instance, an empty workspace mirror
  auto server2 = make_interpreter_server(engine, storage.interpreters(), clock, server_options);
  const auto restored = execute_ok(*server2, key, caller, stateful.use, 9);
  check(result_text(restored) == stateful.expect_result_text, 9,
        "after an eviction `" + stateful.use + "` must still yield '" +
            stateful.expect_result_text + "', got '" + result_text(restored) + "'" +
            (restored.result.outcome.error ? " (" + describe(*restored.result.outcome.error) + ")"
                                           : ""));

  const auto failed = execute_ok(*server2, key, caller, options.programs.error.code, 10);
  check(failed.result.outcome.error.has_value(), 10,
        "`" + options.programs.error.code + "` must report a guest error in a context");
  check(failed.files.empty() && failed.deleted.empty(), 10,
        "a guest error must roll the workspace back and report no file changes");

  check(status_of(server2->handle(key, "DELETE", "/contexts/ctx-1", "")) == 200, 11,
        "DELETE /contexts/ctx-1 must answer 200");
  check(status_of(server2->handle(key, "DELETE", "/contexts/ctx-1", "")) == 404, 11,
        "a second DELETE /contexts/ctx-1 must answer 404");

  create_context(*server2, key, "ctx-2", 12);
  check(status_of(server2->handle(key, "DELETE", "/", "")) == 200, 12,
        "DELETE / (wipe) must answer 200");
  check(status_of(server2->handle(key, "DELETE", "/contexts/ctx-2", "")) == 404, 12,
        "after a wipe DELETE /contexts/ctx-2 must answer 404");
}

}  // namespace

void run_engine_conformance(const Engine& engine, const ConformanceOptions& options) {
  run_stateless_steps(engine, options.programs);
  if (!engine.sessions) return;  // step 4: stateless-only engines pass here
  if (!options.programs.stateful) fail(5, "an engine with sessions needs programs.stateful");
  check(static_cast<bool>(engine.sessions->boot) && static_cast<bool>(engine.sessions->restore), 5,
        "sessions.boot and sessions.restore must both be set");
  run_session_steps(engine, options, *options.programs.stateful);
}

}  // namespace sandbox::testing

// The stateless path of an embedded engine (Engine::run).
#include <functional>
#include <thread>
#include <vector>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include "embedded/guest_abi.h"
#include "embedded_test_util.h"
#include "guest_abi_broken.h"
#include "guest_wasi_probe.h"
#include "support/proc_memory.h"

namespace sandbox {
namespace {

using namespace testing_embedded;

template <class F>
std::string limit_message(F&& f) {
  try {
    f();
  } catch (const ExecutionLimitError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not a limit: ") + e.what();
  }
  return "no exception";
}

template <class F>
std::string failure_message(F&& f) {
  try {
    f();
  } catch (const ExecutionLimitError& e) {
    return std::string("limit: ") + e.what();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no exception";
}

TEST(EmbeddedEngine, DescribesItself) {
  const Engine engine = probe_engine();
  EXPECT_EQ(engine.language, "probe");
  EXPECT_EQ(engine.engine_name, "ABI probe 1.0");
  EXPECT_EQ(engine.build, probe_module().wasm_sha256());
  EXPECT_EQ(engine.build.size(), 64u);
  EXPECT_EQ(engine.limits.fuel, kProbeFuel);
  EXPECT_TRUE(engine.sessions.has_value());

  EmbeddedLanguage lang = probe_language();
  lang.build = "custom-build";
  lang.limits.memory_bytes = 0;
  const Engine custom = probe_engine(lang);
  EXPECT_EQ(custom.build, "custom-build");
  EXPECT_EQ(custom.limits.memory_bytes, std::uint64_t{probe_module().max_pages()} * 65'536);
}

TEST(EmbeddedEngine, RefusesModulesWithoutTheAbi) {
  const wasm::Module not_abi(*sandbox_wasm_module_guest_wasi_probe());
  EXPECT_THROW(make_embedded_engine(not_abi, probe_language()), wasm::WasmError);
  EmbeddedLanguage nameless = probe_language();
  nameless.language.clear();
  EXPECT_THROW(make_embedded_engine(probe_module(), nameless), std::invalid_argument);
}

TEST(EmbeddedEngine, RunReturnsLogsResultsAndUsage) {
  const Engine engine = probe_engine();
  const EngineOutcome o = engine.run(req("print hello\neprint careful\nprint world\ntext done"));
  EXPECT_FALSE(o.error);
  EXPECT_EQ(o.logs.stdout_lines, (std::vector<std::string>{"hello", "world"}));
  EXPECT_EQ(o.logs.stderr_lines, std::vector<std::string>{"careful"});
  EXPECT_EQ(text_of(o), "done");
  ASSERT_TRUE(o.usage);
  EXPECT_GT(o.usage->fuel_consumed, 0u);
  EXPECT_LT(o.usage->fuel_consumed, kProbeFuel);
  EXPECT_EQ(o.usage->fuel_limit, kProbeFuel);
  EXPECT_GT(o.usage->memory_bytes, 0u);
  EXPECT_EQ(o.usage->memory_bytes % 65'536, 0u);
}

TEST(EmbeddedEngine, JsonResults) {
  const EngineOutcome o = probe_engine().run(req("json {\"a\":[1,2,3]}"));
  ASSERT_EQ(o.results.size(), 1u);
  ASSERT_TRUE(o.results[0].json);
  EXPECT_EQ(boost::json::serialize(*o.results[0].json), "{\"a\":[1,2,3]}");
}

TEST(EmbeddedEngine, GuestErrorsAreOutcomesNotExceptions) {
  const EngineOutcome o =
      probe_engine().run(req("print before\nfail ValueError broken\nprint after"));
  ASSERT_TRUE(o.error);
  EXPECT_EQ(o.error->name, "ValueError");
  EXPECT_EQ(o.error->message, "broken");
  EXPECT_EQ(o.error->traceback, std::vector<std::string>{"broken"});
  EXPECT_EQ(o.logs.stdout_lines, std::vector<std::string>{"before"});
  EXPECT_TRUE(o.results.empty());
}

TEST(EmbeddedEngine, EnvVarsReachTheGuestAndHostEnvDoesNot) {
  ::setenv("SANDBOX_EMBEDDED_HOST_ONLY", "secret", 1);
  const Engine engine = probe_engine();
  EXPECT_EQ(text_of(engine.run(req("env GREETING", {{"GREETING", "hello there"}}))), "hello there");
  EXPECT_EQ(text_of(engine.run(req("env SANDBOX_EMBEDDED_HOST_ONLY"))), "<unset>");
}

TEST(EmbeddedEngine, EachRunIsAFreshInstance) {
  const Engine engine = probe_engine();
  EXPECT_FALSE(engine.run(req("set x 1")).error);
  const EngineOutcome o = engine.run(req("get x"));
  ASSERT_TRUE(o.error);
  EXPECT_EQ(o.error->name, "KeyError");
}

// Regression (issue: pooled stateless instances kept the WASI descriptor counter): a caller
// saw how many files earlier callers had opened (descriptor 6, then 107, then 209), and 2^31
// opens would have left an instance refusing every open until a restart. A reused instance
// numbers descriptors as a new one does.
TEST(EmbeddedEngine, APooledInstanceGivesEveryCallerTheSameDescriptorNumbers) {
  const Engine engine = probe_engine();
  std::string opens;
  for (int i = 0; i < 100; ++i) opens += "fdof /dev/null\n";
  const std::string first = text_of(engine.run(req("fdof /dev/null")));
  EXPECT_FALSE(engine.run(req(opens)).error);
  EXPECT_EQ(text_of(engine.run(req("fdof /dev/null"))), first);
  EXPECT_EQ(text_of(engine.run(req("fdof /dev/null"))), first);
}

// ExecutionRequest::defer: a caller that defers is handed the reset of the run's instance (a
// worker process does it after sending the answer). Until the caller has done it, the instance is
// nobody's: a run in between gets another and sees nothing of the first. Done, it puts the
// instance back reset: the next run reuses it (fewer page faults than a run on a new instance,
// counted with getrusage, the same on every host) and sees nothing of the earlier run either.
TEST(EmbeddedEngine, ACallerThatDefersIsHandedTheResetOfItsRunsInstance) {
  const Engine engine = probe_engine();
  std::vector<std::function<void()>> handed;
  ExecutionRequest first = req("set x 1\nfdof /dev/null\nfdof /dev/null");
  first.defer = [&](std::function<void()> task) { handed.push_back(std::move(task)); };
  const std::string fds = text_of(engine.run(first));
  ASSERT_EQ(handed.size(), 1u) << "the reset is the caller's to do";
  const EngineOutcome between = engine.run(req("get x"));
  ASSERT_TRUE(between.error);
  EXPECT_EQ(between.error->name, "KeyError");

  // An engine that keeps one idle instance: the run of `first` below takes it and hands its
  // reset over, so no instance is idle until the task is done.
  EmbeddedLanguage one_idle = probe_language();
  one_idle.idle_instances = 1;
  const Engine reusing = probe_engine(one_idle);
  EmbeddedLanguage no_idle = probe_language();
  no_idle.idle_instances = 0;
  const Engine fresh = probe_engine(no_idle);
  const ExecutionRequest writes = req("set y 2\nfdof /dev/null\nfdof /dev/null");
  EXPECT_FALSE(reusing.run(writes).error);  // the image made, an instance idle
  EXPECT_FALSE(fresh.run(writes).error);    // the image made, the instance dropped
  handed.clear();
  EXPECT_EQ(text_of(reusing.run(first)), fds);
  ASSERT_EQ(handed.size(), 1u);
  handed.front()();
  const auto faults_of = [&](const Engine& e) {
    const long before = testing_support::thread_minor_faults();
    EXPECT_EQ(text_of(e.run(writes)), fds);
    return testing_support::thread_minor_faults() - before;
  };
  const long on_new = faults_of(fresh);
  const long on_reset = faults_of(reusing);
  EXPECT_LT(on_reset, on_new) << "on the reset instance " << on_reset << ", on a new one "
                              << on_new;
  const EngineOutcome after = reusing.run(req("get x"));
  ASSERT_TRUE(after.error);
  EXPECT_EQ(after.error->name, "KeyError");
  EXPECT_EQ(text_of(reusing.run(req("fdof /dev/null\nfdof /dev/null"))), fds);

  // A task never run costs only the reuse: the instance is dropped with it.
  handed.clear();
  EXPECT_EQ(text_of(reusing.run(first)), fds);
  handed.clear();
  EXPECT_EQ(text_of(reusing.run(req("fdof /dev/null\nfdof /dev/null"))), fds);
}

TEST(EmbeddedEngine, LimitsAreThrownAsExecutionLimitError) {
  const Engine engine = probe_engine();
  EXPECT_EQ(limit_message([&] { static_cast<void>(engine.run(req("spin"))); }),
            "Execution fuel exhausted");
  EXPECT_EQ(limit_message([&] { static_cast<void>(engine.run(req("big 70000"))); }),
            "Result limit exceeded");
  EXPECT_EQ(text_of(engine.run(req("big 60000"))).size(), 60'000u);
  std::string flood;
  for (int i = 0; i < 40; ++i) flood += "print " + std::string(1000, 'y') + "\n";
  EXPECT_EQ(limit_message([&] { static_cast<void>(engine.run(req(flood))); }),
            "Output limit exceeded");
}

// The streaming hook (ExecutionRequest::on_output): it sees the pieces in order while the guest
// runs, and it is dropped when the call ends, also when the call throws after the instance went
// back to the pool (a limit checked after the guest call: once a use after the hand-back).
TEST(EmbeddedEngine, OutputObserverIsDroppedBeforeTheInstanceIsGivenBack) {
  const Engine engine = probe_engine();
  std::string seen;
  const auto observe = [&](OutputStream s, std::string_view text) {
    seen += (s == OutputStream::kStdout ? "out:" : "err:") + std::string(text) + "|";
  };
  ExecutionRequest r = req("print hello\neprint careful\nprint world\ntext done");
  r.on_output = observe;
  const EngineOutcome o = engine.run(r);
  EXPECT_EQ(o.logs.stdout_lines, (std::vector<std::string>{"hello", "world"}));
  EXPECT_NE(seen.find("hello"), std::string::npos);
  EXPECT_NE(seen.find("err:careful"), std::string::npos);
  EXPECT_LT(seen.find("hello"), seen.find("world"));
  ExecutionRequest big = req("big 70000");
  big.on_output = observe;
  EXPECT_EQ(limit_message([&] { static_cast<void>(engine.run(big)); }), "Result limit exceeded");
  seen.clear();
  static_cast<void>(
      engine.run(req("print later")));  // the reused instance no longer reaches the old observer
  EXPECT_EQ(seen, "");
}

TEST(EmbeddedEngine, TheDeadlineStopsAnUnmeteredLoop) {
  EmbeddedLanguage lang = probe_language();
  lang.limits.fuel = 0;
  lang.call_timeout = std::chrono::milliseconds(200);
  const Engine engine = probe_engine(lang);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(limit_message([&] { static_cast<void>(engine.run(req("spin"))); }),
            "Execution time limit exceeded");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  const EngineOutcome ok = engine.run(req("text fine"));
  EXPECT_EQ(text_of(ok), "fine");
  ASSERT_TRUE(ok.usage);
  EXPECT_EQ(ok.usage->fuel_limit, 0u);
}

TEST(EmbeddedEngine, TrapsAndInternalErrorsAreThrown) {
  const Engine engine = probe_engine();
  EXPECT_EQ(failure_message([&] { static_cast<void>(engine.run(req("exit 3"))); }),
            "exit with exit code 3");
  EXPECT_NE(failure_message([&] { static_cast<void>(engine.run(req("trap"))); }).find("nreachable"),
            std::string::npos);
  EXPECT_EQ(failure_message(
                [&] { static_cast<void>(engine.run(req("status 2 the interpreter broke"))); }),
            "the interpreter broke");
  EXPECT_EQ(failure_message([&] { static_cast<void>(engine.run(req("status 7 what"))); }),
            "Interpreter returned unknown status 7");
  EXPECT_NE(failure_message([&] {
              static_cast<void>(engine.run(req("reply not json")));
            }).find("Malformed interpreter response"),
            std::string::npos);
  EXPECT_NE(failure_message([&] {
              static_cast<void>(
                  engine.run(req("reply {\"results\":[{\"text\":\"a\"},{\"text\":\"b\"}]}")));
            }).find("more than one result"),
            std::string::npos);
}

TEST(EmbeddedEngine, MemoryExhaustionIsAGuestError) {
  const EngineOutcome o = probe_engine().run(req("alloc 100"));
  ASSERT_TRUE(o.error);
  EXPECT_EQ(o.error->name, "MemoryError");
  ASSERT_TRUE(o.usage);
  EXPECT_LE(o.usage->memory_bytes, 32u << 20);
}

TEST(EmbeddedEngine, AFailingSessionInitFailsTheRun) {
  const wasm::Module broken(*sandbox_wasm_module_guest_abi_broken());
  const Engine engine = make_embedded_engine(broken, probe_language());
  EXPECT_EQ(failure_message([&] { static_cast<void>(engine.run(req("text x"))); }),
            "Interpreter initialization failed: probe refuses to start");
}

TEST(EmbeddedEngine, HooksRunAfterInitAndOnOutcomes) {
  EmbeddedLanguage lang = probe_language();
  lang.after_init = [](EmbeddedGuest& guest) {
    const GuestReply r = guest.eval("set prelude loaded");
    if (r.status != 0) throw std::runtime_error("prelude failed");
  };
  lang.post_process = [](EngineOutcome& o) { o.logs.stdout_lines.push_back("post-processed"); };
  const EngineOutcome o = probe_engine(lang).run(req("get prelude"));
  EXPECT_EQ(text_of(o), "loaded");
  EXPECT_EQ(o.logs.stdout_lines, std::vector<std::string>{"post-processed"});
}

TEST(EmbeddedEngine, RunsConcurrently) {
  const Engine engine = probe_engine();
  std::vector<std::thread> threads;
  std::vector<std::string> got(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        got[t] = text_of(engine.run(req("set v " + std::to_string(t) + "\nget v")));
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(got[t], std::to_string(t));
}

TEST(GuestAbi, EncodesRequestRecords) {
  const auto bytes = embedded::encode_request("ab", "/workspace", {{"K", "v"}});
  const std::vector<std::uint8_t> expected = {'c', 2,   0,   0,   0,   'a', 'b',  //
                                              'w', 10,  0,   0,   0,   '/', 'w', 'o',
                                              'r', 'k', 's', 'p', 'a', 'c', 'e',  //
                                              'e', 3,   0,   0,   0,   'K', '=', 'v'};
  EXPECT_EQ(bytes, expected);
}

TEST(GuestAbi, ParsesEnvelopes) {
  const GuestReply r = embedded::parse_reply(
      1,
      R"({"results":[],"error":{"name":"E","message":"m","traceback":["a","b"],"lineNumber":3},"cwd":"/workspace/x"})");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->name, "E");
  EXPECT_EQ(r.error->traceback, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r.error->line_number, 3);
  EXPECT_EQ(r.cwd, "/workspace/x");
  const GuestReply bare = embedded::parse_reply(1, "{}");
  ASSERT_TRUE(bare.error);
  EXPECT_EQ(bare.error->name, "Error");
  const GuestReply utf8 = embedded::parse_reply(0, "{\"results\":[{\"text\":\"\xff\"}]}");
  EXPECT_EQ(*utf8.results.at(0).text, "\xef\xbf\xbd");
  for (const char* bad : {"[]", R"({"results":{}})", R"({"results":[1]})", R"({"results":[{}]})",
                          R"({"error":"x"})", R"({"error":{"traceback":[1]}})", R"({"cwd":1})"}) {
    EXPECT_THROW(static_cast<void>(embedded::parse_reply(0, bad)), std::runtime_error) << bad;
  }
}

TEST(GuestAbi, TheResultLimitCountsSerializedJson) {
  std::vector<ResultEntry> results{ResultEntry::of_text(std::string(65'536 - 13, 'x'))};
  EXPECT_EQ(embedded::results_json_bytes(results), 65'536u);  // [{"text":"..."}]
  EXPECT_NO_THROW(embedded::check_result_limit(results));
  results[0].text->push_back('x');
  EXPECT_THROW(embedded::check_result_limit(results), ExecutionLimitError);
}

}  // namespace
}  // namespace sandbox

// The post-initialisation image checks (<sandbox/testing/image_checks.h>) and the restart check.
#include <atomic>
#include <filesystem>
#include <thread>
#include <variant>

#include <boost/json/serialize.hpp>
#include <unistd.h>

#include <sandbox/runtime.h>
#include <sandbox/testing/image_checks.h>

namespace sandbox::testing {
namespace {

// Runs `body` with a recorder; an exception is one more failure and ends the check.
template <typename Body>
CheckResult checked(std::string name, Body&& body) {
  CheckResult result{.name = std::move(name)};
  const auto expect = [&result](bool ok, const std::string& failure) {
    if (!ok) result.failures.push_back(failure);
    return ok;
  };
  try {
    body(expect, result);
  } catch (const std::exception& e) {
    result.failures.push_back(std::string("threw: ") + e.what());
  }
  return result;
}

std::string describe(const EngineOutcome& o) {
  return o.error ? o.error->name + ": " + o.error->message : "";
}

// The text result of a stateless run that must succeed ("" when it has no text result).
template <typename Expect>
std::string run_text(const Engine& engine, const std::string& code, Expect& expect) {
  const EngineOutcome o = engine.run({code, {}});
  expect(!o.error, "`" + code + "` failed: " + describe(o));
  if (o.results.empty()) return "";
  return o.results[0].text.value_or("");
}

template <typename Expect>
bool nonempty(Expect& expect, const std::string& program, const char* what) {
  return expect(!program.empty(), std::string(what) + " is empty: write it in the language");
}

// A temporary directory removed when the check ends, however it ends.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    static std::atomic<int> counter{0};
    path_ =
        std::filesystem::temp_directory_path() /
        ("sandbox-restart-check-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
  }
  ~TemporaryDirectory() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace

CheckResult check_stateless_runs_do_not_share_state(const Engine& engine,
                                                    const std::string& leave_state,
                                                    const std::string& observe,
                                                    const std::string& fresh) {
  return checked("stateless runs do not share state", [&](auto& expect, CheckResult&) {
    if (!nonempty(expect, leave_state, "leave_state") || !nonempty(expect, observe, "observe")) {
      return;
    }
    for (int i = 0; i < kStateRounds; ++i) {
      const EngineOutcome set = engine.run({leave_state, {{"A", "1"}}});
      if (!expect(!set.error, "`" + leave_state + "` failed: " + describe(set))) return;
      const std::string got = run_text(engine, observe, expect);
      expect(got == fresh, "round " + std::to_string(i + 1) + ": `" + observe + "` yields '" + got +
                               "' after `" + leave_state + "`, expected '" + fresh + "'");
    }
  });
}

CheckResult check_runs_after_a_failed_run_start_from_the_image(
    const Engine& engine, const std::vector<std::string>& failing, const std::string& observe,
    const std::string& fresh) {
  return checked("runs after a failed run start from the image", [&](auto& expect, CheckResult&) {
    if (!expect(!failing.empty(), "no failing programs") || !nonempty(expect, observe, "observe")) {
      return;
    }
    for (const auto& code : failing) {
      bool threw = false;
      try {
        static_cast<void>(engine.run({code, {}}));
      } catch (const std::exception&) {
        threw = true;
      }
      expect(threw, "`" + code + "` must make run() throw (a limit, a trap, exit)");
      const std::string got = run_text(engine, observe, expect);
      expect(got == fresh, "`" + observe + "` yields '" + got + "' after `" + code +
                               "`, expected '" + fresh + "'");
    }
  });
}

CheckResult check_a_grown_instance_is_not_reused(const Engine& engine, const std::string& grow,
                                                 const std::string& small) {
  return checked("a grown instance is not reused", [&](auto& expect, CheckResult&) {
    if (!nonempty(expect, grow, "grow") || !nonempty(expect, small, "small")) return;
    const EngineOutcome base = engine.run({small, {}});
    if (!expect(base.usage.has_value(), "`" + small + "` reports no usage")) return;
    const EngineOutcome big = engine.run({grow, {}});
    if (!expect(big.usage.has_value(), "`" + grow + "` reports no usage")) return;
    if (!expect(!big.error, "`" + grow + "` failed: " + describe(big))) return;
    expect(big.usage->memory_bytes > base.usage->memory_bytes,
           "`" + grow + "` used " + std::to_string(big.usage->memory_bytes) +
               " bytes of memory, not more than `" + small + "` (" +
               std::to_string(base.usage->memory_bytes) + ")");
    for (int i = 0; i < kRunsAfterGrowth; ++i) {
      const EngineOutcome next = engine.run({small, {}});
      if (!expect(next.usage.has_value(), "`" + small + "` reports no usage")) return;
      expect(next.usage->memory_bytes == base.usage->memory_bytes,
             "run " + std::to_string(i + 1) + " after `" + grow + "` has " +
                 std::to_string(next.usage->memory_bytes) + " bytes of memory, the image " +
                 std::to_string(base.usage->memory_bytes));
    }
  });
}

CheckResult check_concurrent_stateless_runs(
    const Engine& engine, const std::function<std::string(int)>& store_and_double) {
  return checked("concurrent stateless runs", [&](auto& expect, CheckResult&) {
    if (!expect(static_cast<bool>(store_and_double), "store_and_double is not set")) return;
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    threads.reserve(kConcurrentThreads);
    for (int t = 0; t < kConcurrentThreads; ++t) {
      threads.emplace_back([t, &ok, &engine, &store_and_double] {
        for (int i = 0; i < kRunsPerThread; ++i) {
          const int n = t * 100 + i;
          try {
            const EngineOutcome o = engine.run({store_and_double(n), {}});
            if (!o.error && o.results.size() == 1 && o.results[0].text == std::to_string(2 * n)) {
              ++ok;
            }
          } catch (const std::exception&) {
            // counted as a wrong answer below
          }
        }
      });
    }
    for (auto& th : threads) th.join();
    constexpr int kRuns = kConcurrentThreads * kRunsPerThread;
    expect(ok.load() == kRuns, std::to_string(ok.load()) + " of " + std::to_string(kRuns) +
                                   " concurrent runs yielded their own 2n");
  });
}

CheckResult check_start_up_uses_little_of_the_fuel_budget(const Engine& engine,
                                                          const std::string& small) {
  return checked("start-up uses little of the fuel budget", [&](auto& expect, CheckResult& r) {
    if (!expect(engine.limits.fuel > 0, "limits.fuel is 0: the engine is not metered")) return;
    const EngineOutcome run = engine.run({small, {}});
    if (!expect(run.usage.has_value(), "`" + small + "` reports no usage")) return;
    r.notes.push_back("fuel: stateless " + small + " " + std::to_string(run.usage->fuel_consumed) +
                      " of " + std::to_string(engine.limits.fuel) + ", memory " +
                      std::to_string(run.usage->memory_bytes) + " bytes");
    expect(run.usage->fuel_consumed < engine.limits.fuel / kStartUpFuelDivisor,
           "`" + small + "` used " + std::to_string(run.usage->fuel_consumed) +
               " fuel, not less than limits.fuel / " + std::to_string(kStartUpFuelDivisor));
  });
}

CheckResult check_a_context_survives_a_restart_of_the_runtime(
    const std::function<Engine()>& make_engine, const std::string& define, const std::string& use,
    const std::string& expected) {
  return checked("a context survives a restart of the runtime", [&](auto& expect, CheckResult& r) {
    if (!nonempty(expect, define, "define") || !nonempty(expect, use, "use")) return;
    const TemporaryDirectory dir;
    const RuntimeOptions options{.data_dir = dir.path().string()};
    // The response of `code` in ctx-1, or nullptr (and a failure) when the call failed.
    const auto execute = [&expect](InterpreterRuntime& runtime, const std::string& code) {
      auto result = runtime.execute_in_context("key-1", {"ctx-1", code, {}, {}}, nullptr);
      std::optional<InterpreterExecuteResponse> response;
      if (auto* e = std::get_if<InterpreterCallError>(&result)) {
        expect(false,
               "`" + code + "` answered " + std::to_string(e->status) + " " + e->body.message);
      } else {
        response = std::get<InterpreterExecuteResponse>(std::move(result));
      }
      return response;
    };
    {
      auto runtime = define_interpreter_runtime(make_engine(), options);
      if (!expect(runtime->interpreter() != nullptr, "the engine has no sessions")) return;
      const int status =
          runtime->interpreter()->handle("key-1", "POST", "/contexts", R"({"id":"ctx-1"})").status;
      if (!expect(status == 201, "POST /contexts answered " + std::to_string(status))) return;
      const auto first = execute(*runtime, define);
      if (!first) return;
      if (!expect(!first->result.outcome.error,
                  "`" + define + "` failed: " + describe(first->result.outcome))) {
        return;
      }
      if (!expect(first->context.snapshot.has_value(), "`" + define + "` left no snapshot")) {
        return;
      }
      r.notes.push_back("first snapshot: " + std::to_string(first->context.snapshot->pages) +
                        " non-zero pages, " +
                        std::to_string(first->context.snapshot->stored_bytes) + " bytes stored");
    }
    auto runtime = define_interpreter_runtime(make_engine(), options);
    const auto second = execute(*runtime, use);
    if (!second) return;
    const EngineOutcome& outcome = second->result.outcome;
    if (!expect(!outcome.error, "`" + use + "` failed after the restart: " + describe(outcome))) {
      return;
    }
    if (!expect(outcome.results.size() == 1, "`" + use + "` must yield one result")) return;
    const auto& result = outcome.results[0];
    const std::string got = result.text ? *result.text : boost::json::serialize(*result.json);
    expect(got == expected,
           "`" + use + "` yields '" + got + "' after the restart, expected '" + expected + "'");
    expect(second->execution_count == 2, "the execution after the restart is number " +
                                             std::to_string(second->execution_count) +
                                             ", expected 2");
  });
}

std::vector<CheckResult> check_post_init_image(const Engine& engine,
                                               const ImageCheckPrograms& programs) {
  std::vector<CheckResult> results;
  results.push_back(check_stateless_runs_do_not_share_state(
      engine, programs.leave_state, programs.observe_state, programs.fresh_state));
  results.push_back(check_runs_after_a_failed_run_start_from_the_image(
      engine, programs.failing, programs.observe_failed, programs.fresh_failed));
  results.push_back(check_a_grown_instance_is_not_reused(engine, programs.grow, programs.small));
  results.push_back(check_concurrent_stateless_runs(engine, programs.store_and_double));
  if (programs.check_start_up_fuel) {
    results.push_back(check_start_up_uses_little_of_the_fuel_budget(engine, programs.small));
  }
  return results;
}

}  // namespace sandbox::testing

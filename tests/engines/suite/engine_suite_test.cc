// The suite every engine runs, written once: parameterised over the engines this build has
// (engines::builtin_engines(), generated from the manifest engines/engines.cmake; a HEAVY engine
// that SANDBOX_ENGINES leaves out is absent, and tests/engines/manifest checks that the registry
// lists exactly the engines built) and named by language, each engine fed by its own data:
//   EngineConformance   the kit's conformance suite (<sandbox/testing.h>) with the programs of
//                       engines/<id>/conformance.json, the ones `sandbox init <id>` writes;
//   EngineCorpus        each case of tests/engines/<id>/corpus.json (<sandbox/testing/
//                       program_corpus.h>) in each of its modes, one test per case and mode;
//   EngineChecks        with the programs of tests/engines/<id>/checks.json (below): the
//                       post-initialisation image checks (<sandbox/testing/image_checks.h>), a
//                       code context across a restart of the runtime, and restored copies of a
//                       session drawing different random numbers; every engine with sessions
//                       must have the first two.
//
// checks.json, each section optional (an engine without sessions, calc, has no file):
//   {"post_init_image": {"leave_state", "observe_state", "fresh_state", "failing": [...],
//                        "observe_failed", "fresh_failed", "grow",
//                        "store_and_double": "... {n} ... {2n} ...", "small",
//                        "start_up_fuel": true (default) | false},
//    "context_restart": {"define", "use", "expected"},
//    "restored_copies": {"define", "define_result", "draw"}}
// are the arguments of check_post_init_image() (store_and_double(n) is the template with n and
// 2n in place; start_up_fuel false leaves the start-up check to the engine's own test), of
// check_a_context_survives_a_restart_of_the_runtime(), and of a session that runs `define`
// (yielding the text `define_result`) and is snapshotted and restored twice, `draw` then
// yielding different texts in the two copies. A program is a string, or for long repetitive
// ones a list of programs concatenated, or {"repeat": program, "times": N}.
// Registered twice (BOTH_ISOLATIONS): with the engine in process, and in worker processes. What
// is particular to a language (its identity, snapshots, semantics) stays in tests/engines/<id>/.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <sandbox/engine.h>
#include <sandbox/testing.h>

#include "engines/corpus/corpus_runner.h"
#include "engines/corpus/session_snapshot.h"
#include "registry.h"
#include "support/isolation_under_test.h"

namespace sandbox {
namespace {

namespace fs = std::filesystem;

// The engines of this build, in the manifest's order.
std::vector<std::string> built_engines() {
  std::vector<std::string> ids;
  for (const auto& entry : engines::builtin_engines()) ids.push_back(entry.name);
  return ids;
}

// The engine `id` as the suite uses it (test::under_test: in process, or in worker processes),
// made once per test process.
const Engine& engine(const std::string& id) {
  static std::map<std::string, Engine> made;
  const auto it = made.find(id);
  if (it != made.end()) return it->second;
  const engines::EngineEntry* entry = engines::find_engine(id);
  if (entry == nullptr) throw std::logic_error("no built engine " + id);
  return made.emplace(id, test::under_test(entry->make())).first->second;
}

fs::path corpus_file(const std::string& id) {
  return fs::path(SANDBOX_TEST_ENGINE_TESTS_DIR) / id / "corpus.json";
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A string member of `object` ("" when `optional` and it is absent or null).
std::string member(const boost::json::object& object, std::string_view key, bool optional = false) {
  const boost::json::value* value = object.if_contains(key);
  if ((value == nullptr || value->is_null()) && optional) return {};
  if (value == nullptr || !value->is_string()) {
    throw std::runtime_error(std::string(key) + " must be a string");
  }
  return std::string(value->as_string());
}

// The programs of engines/<id>/conformance.json, in the format of the conformance.json `sandbox
// init` writes (src/scaffold/templates/common/conformance_test.cc reads the same).
testing::ConformancePrograms conformance_programs(const std::string& id) {
  const fs::path file = fs::path(SANDBOX_TEST_ENGINES_DIR) / id / "conformance.json";
  const boost::json::object root = boost::json::parse(read_text(file)).as_object();
  testing::ConformancePrograms programs;
  const auto& simple = root.at("simple").as_object();
  programs.simple.code = member(simple, "code");
  if (const std::string result = member(simple, "expectResultText", true); !result.empty()) {
    programs.simple.expect_result_text = result;
  }
  programs.error.code = member(root.at("error").as_object(), "code");
  if (!root.at("stateful").is_null()) {
    const auto& stateful = root.at("stateful").as_object();
    programs.stateful =
        testing::StatefulProgram{.define = member(stateful, "define"),
                                 .use = member(stateful, "use"),
                                 .expect_result_text = member(stateful, "expectResultText")};
  }
  return programs;
}

std::string engine_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

class EngineConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(EngineConformance, PassesTheConformanceSuite) {
  const testing::ConformancePrograms programs = conformance_programs(GetParam());
  // The programs are the engine's: a session engine needs the stateful ones, and only it.
  EXPECT_EQ(programs.stateful.has_value(), engine(GetParam()).sessions.has_value());
  try {
    testing::run_engine_conformance(engine(GetParam()), {.programs = programs});
  } catch (const testing::ConformanceFailure& failure) {
    ADD_FAILURE() << GetParam() << ": " << failure.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, EngineConformance, ::testing::ValuesIn(built_engines()),
                         engine_name);

// Every engine has a program corpus, and it is not empty.
class EngineCorpusFile : public ::testing::TestWithParam<std::string> {};

TEST_P(EngineCorpusFile, HasCases) {
  ASSERT_TRUE(fs::exists(corpus_file(GetParam()))) << corpus_file(GetParam());
  EXPECT_FALSE(testing::load_program_corpus(corpus_file(GetParam())).empty());
}

INSTANTIATE_TEST_SUITE_P(Engines, EngineCorpusFile, ::testing::ValuesIn(built_engines()),
                         engine_name);

// One case of one engine's corpus in one mode.
struct EngineCase {
  std::string engine;
  testing::CorpusCase corpus_case;
};

// GoogleTest prints a failing parameter with this.
std::ostream& operator<<(std::ostream& os, const EngineCase& c) {
  return os << c.engine << ": " << c.corpus_case;
}

// The cases of every built engine's corpus (an engine without one is EngineCorpusFile's failure).
std::vector<EngineCase> corpus_cases() {
  std::vector<EngineCase> out;
  for (const auto& id : built_engines()) {
    if (!fs::exists(corpus_file(id))) continue;
    for (auto& c : testing::load_program_corpus(corpus_file(id))) {
      out.push_back(EngineCase{id, std::move(c)});
    }
  }
  return out;
}

class EngineCorpus : public ::testing::TestWithParam<EngineCase> {};

TEST_P(EngineCorpus, Program) {
  testing_corpus::expect_passed(
      testing::run_corpus_case(engine(GetParam().engine), GetParam().corpus_case));
}

INSTANTIATE_TEST_SUITE_P(Corpus, EngineCorpus, ::testing::ValuesIn(corpus_cases()),
                         [](const ::testing::TestParamInfo<EngineCase>& info) {
                           return info.param.engine + "_" + info.param.corpus_case.id();
                         });

// What an engine's checks.json holds (an empty object without the file).
boost::json::object checks(const std::string& id) {
  const fs::path file = fs::path(SANDBOX_TEST_ENGINE_TESTS_DIR) / id / "checks.json";
  if (!fs::exists(file)) return {};
  return boost::json::parse(read_text(file)).as_object();
}

// The built engines whose checks.json has `section`.
std::vector<std::string> engines_with(std::string_view section) {
  std::vector<std::string> ids;
  for (const auto& id : built_engines()) {
    if (checks(id).contains(section)) ids.push_back(id);
  }
  return ids;
}

// A program of checks.json: a string, a list of programs concatenated, or {"repeat": program,
// "times": N}.
std::string program(const boost::json::value& value) {
  if (value.is_string()) return std::string(value.as_string());
  std::string out;
  if (value.is_array()) {
    for (const auto& piece : value.as_array()) out += program(piece);
    return out;
  }
  const auto& repeat = value.as_object();
  const std::string once = program(repeat.at("repeat"));
  for (std::int64_t i = 0; i < repeat.at("times").as_int64(); ++i) out += once;
  return out;
}

std::string program(const boost::json::object& object, std::string_view key) {
  return program(object.at(key));
}

// `text` with every `from` replaced by `to`.
std::string replace_all(std::string text, std::string_view from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

class EngineChecksFile : public ::testing::TestWithParam<std::string> {};

// Every engine with sessions (code contexts) has the checks a session engine must pass; one
// without has none of the session checks.
TEST_P(EngineChecksFile, AnEngineWithSessionsHasItsChecks) {
  const boost::json::object c = checks(GetParam());
  if (engine(GetParam()).sessions) {
    EXPECT_TRUE(c.contains("post_init_image")) << GetParam();
    EXPECT_TRUE(c.contains("context_restart")) << GetParam();
  } else {
    EXPECT_FALSE(c.contains("context_restart")) << GetParam();
    EXPECT_FALSE(c.contains("restored_copies")) << GetParam();
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, EngineChecksFile, ::testing::ValuesIn(built_engines()),
                         engine_name);

class EngineImage : public ::testing::TestWithParam<std::string> {};

// Stateless runs start from the post-initialisation image: nothing one run leaves behind (or a
// run that trapped) is visible to the next, a grown instance is not reused, concurrent runs stay
// apart, and the start-up is not paid by each run.
TEST_P(EngineImage, PassesThePostInitImageChecks) {
  const boost::json::object all = checks(GetParam());
  const auto& p = all.at("post_init_image").as_object();
  testing::ImageCheckPrograms programs{
      .leave_state = program(p, "leave_state"),
      .observe_state = program(p, "observe_state"),
      .fresh_state = program(p, "fresh_state"),
      .failing = {},
      .observe_failed = program(p, "observe_failed"),
      .fresh_failed = program(p, "fresh_failed"),
      .grow = program(p, "grow"),
      .store_and_double =
          [store_and_double = program(p, "store_and_double")](int n) {
            return replace_all(replace_all(store_and_double, "{2n}", std::to_string(2 * n)), "{n}",
                               std::to_string(n));
          },
      .small = program(p, "small"),
      .check_start_up_fuel = !p.contains("start_up_fuel") || p.at("start_up_fuel").as_bool()};
  for (const auto& failing : p.at("failing").as_array())
    programs.failing.push_back(program(failing));
  const auto results = testing::check_post_init_image(engine(GetParam()), programs);
  EXPECT_EQ(results.size(), programs.check_start_up_fuel ? 5U : 4U);
  for (const auto& r : results) testing_corpus::expect_passed(r);
}

INSTANTIATE_TEST_SUITE_P(Engines, EngineImage, ::testing::ValuesIn(engines_with("post_init_image")),
                         engine_name);

class EngineContexts : public ::testing::TestWithParam<std::string> {};

// A code context stored by one runtime comes back in a new runtime over the same data directory.
TEST_P(EngineContexts, AContextSurvivesARestartOfTheRuntime) {
  const boost::json::object all = checks(GetParam());
  const auto& c = all.at("context_restart").as_object();
  testing_corpus::expect_passed(testing::check_a_context_survives_a_restart_of_the_runtime(
      engines::find_engine(GetParam())->make, program(c, "define"), program(c, "use"),
      program(c, "expected")));
}

INSTANTIATE_TEST_SUITE_P(Engines, EngineContexts,
                         ::testing::ValuesIn(engines_with("context_restart")), engine_name);

class EngineRandom : public ::testing::TestWithParam<std::string> {};

// Two copies restored from one snapshot are reseeded: they do not replay the same numbers.
TEST_P(EngineRandom, RestoredCopiesDrawDifferentRandomNumbers) {
  const boost::json::object all = checks(GetParam());
  const auto& r = all.at("restored_copies").as_object();
  testing_corpus::SnapshotFixture f(engine(GetParam()));
  f.expect_text(*f.session, program(r, "define"), program(r, "define_result"));
  auto a = f.restore();
  auto b = f.restore();
  const std::string draw = program(r, "draw");
  EXPECT_NE(f.text(*a, draw), f.text(*b, draw));
}

INSTANTIATE_TEST_SUITE_P(Engines, EngineRandom,
                         ::testing::ValuesIn(engines_with("restored_copies")), engine_name);

}  // namespace
}  // namespace sandbox

// The program corpus of sandbox::testing: a corpus file is validated when loaded (each error
// names the case), and running a case reports every expectation the engine's outcome breaks.
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include <sandbox/testing.h>

#include "calc_engine.h"
#include "kv_engine.h"

namespace sandbox {
namespace {

// A corpus file in a temporary directory, removed at the end of the test.
class CorpusFile {
 public:
  explicit CorpusFile(const std::string& text) {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() / ("corpus-test-" + std::to_string(::getpid()) +
                                                      "-" + std::to_string(counter++) + ".json");
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~CorpusFile() { std::filesystem::remove(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::string load_error(const std::string& text) {
  const CorpusFile file(text);
  try {
    testing::load_program_corpus(file.path());
  } catch (const testing::CorpusError& e) {
    return e.what();
  }
  return "(loaded)";
}

std::string failures_of(const testing::CheckResult& r) {
  std::ostringstream os;
  os << r;
  return os.str();
}

TEST(ProgramCorpus, EachCaseRunsOncePerMode) {
  const CorpusFile file(R"([
    {"name": "both", "code": "set a 1\nget a", "results": [{"text": "1"}]},
    {"name": "stateless", "code": "print hi", "modes": ["run"], "stdout": ["hi"]},
    {"name": "session_only", "code": "get a", "modes": ["session"], "setup": ["set a 2"],
     "results": [{"text": "2"}], "then": {"code": "incr a", "results": [{"text": "3"}]}}])");
  const auto cases = testing::load_program_corpus(file.path());
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[0].id(), "both_run");
  EXPECT_EQ(cases[1].id(), "both_session");
  EXPECT_EQ(cases[2].id(), "stateless_run");
  EXPECT_EQ(cases[3].id(), "session_only_session");
  const Engine kv = engines::make_kv_engine();
  const auto results = testing::run_program_corpus(kv, file.path());
  ASSERT_EQ(results.size(), 4u);
  for (const auto& r : results) EXPECT_TRUE(r.passed()) << r;
}

TEST(ProgramCorpus, ReportsEveryBrokenExpectation) {
  const CorpusFile file(R"([
    {"name": "wrong", "code": "set a 1\nprint hi\nget a", "results": [{"text": "2"}],
     "stdout": ["bye"], "modes": ["run"]},
    {"name": "no_error", "code": "get a", "error": {"name": "KeyError"}, "modes": ["run"],
     "results": []},
    {"name": "wrong_error", "code": "fail boom",
     "error": {"name": "ValueError", "message_matches": "^bang$"}, "modes": ["run"]},
    {"name": "files", "code": "write /workspace/out.txt yes", "modes": ["session"],
     "expect_files": {"/workspace/out.txt": "no"}, "invalidates": true}])");
  const Engine kv = engines::make_kv_engine();
  const auto results = testing::run_program_corpus(kv, file.path());
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].failures.size(), 2u) << results[0];
  EXPECT_NE(failures_of(results[0]).find(R"(results [{"text":"1"}], expected [{"text":"2"}])"),
            std::string::npos)
      << results[0];
  EXPECT_NE(failures_of(results[0]).find(R"(stdout ["hi"], expected ["bye"])"), std::string::npos);
  // `get a` in a fresh run fails with KeyError: the corpus expected it, so this one passes.
  EXPECT_TRUE(results[1].passed()) << results[1];
  EXPECT_EQ(results[2].failures.size(), 2u) << results[2];
  EXPECT_NE(failures_of(results[2]).find("error name 'KvError', expected 'ValueError'"),
            std::string::npos)
      << results[2];
  EXPECT_EQ(results[3].failures.size(), 2u) << results[3];
  EXPECT_NE(failures_of(results[3]).find("/workspace/out.txt holds 'yes', expected 'no'"),
            std::string::npos)
      << results[3];
  EXPECT_NE(failures_of(results[3]).find("the session must be invalid afterwards"),
            std::string::npos)
      << results[3];
}

TEST(ProgramCorpus, AThrowingRunIsCheckedAsTheRuntimeReportsIt) {
  const CorpusFile file(R"([{"name": "spin", "code": "spin", "modes": ["run"],
    "error": {"name": "ExecutionLimitError", "message": "Execution fuel exhausted"}}])");
  const Engine kv = engines::make_kv_engine();
  const auto results = testing::run_program_corpus(kv, file.path());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].passed()) << results[0];
}

TEST(ProgramCorpus, SessionCasesFailForAStatelessEngine) {
  const CorpusFile file(R"([{"name": "sum", "code": "1 + 1", "results": [{"text": "2"}]}])");
  const Engine calc = engines::make_calc_engine();
  const auto results = testing::run_program_corpus(calc, file.path());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0].passed()) << results[0];
  ASSERT_FALSE(results[1].passed());
  EXPECT_NE(failures_of(results[1]).find("the engine has no sessions"), std::string::npos);
}

TEST(ProgramCorpus, SetupInAStatelessRunFails) {
  const CorpusFile file(R"([{"name": "s", "code": "1", "setup": ["2"], "modes": ["run"]}])");
  const auto results = testing::run_program_corpus(engines::make_calc_engine(), file.path());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_NE(failures_of(results[0]).find("\"setup\" needs a session"), std::string::npos);
}

TEST(ProgramCorpus, MalformedCorporaAreRefusedNamingTheCase) {
  EXPECT_NE(load_error("{}").find("must be a JSON array of cases"), std::string::npos);
  EXPECT_NE(load_error("[1").find("not JSON"), std::string::npos);
  EXPECT_NE(load_error(R"([{"code": "1"}])").find("case 0: \"name\" must be a string"),
            std::string::npos);
  EXPECT_NE(load_error(R"([{"name": "a b", "code": "1"}])").find("[A-Za-z0-9_]+"),
            std::string::npos);
  EXPECT_NE(load_error(R"([{"name": "a", "code": "1"}, {"name": "a", "code": "2"}])")
                .find("case 'a': a second case with this name"),
            std::string::npos);
  EXPECT_NE(load_error(R"([{"name": "a", "code": "1", "result": []}])")
                .find("case 'a': unknown key \"result\""),
            std::string::npos);
  EXPECT_NE(load_error(R"([{"name": "a", "code": "1", "error": {"nmae": "X"}}])")
                .find("unknown key \"error.nmae\""),
            std::string::npos);
  EXPECT_NE(load_error(R"([{"name": "a", "code": "1", "result_text_matches": "("}])")
                .find("not a valid regex"),
            std::string::npos);
  EXPECT_NE(load_error(R"([{"name": "a", "code": "1", "modes": ["stateless"]}])")
                .find("a mode is \"run\" or \"session\""),
            std::string::npos);
  EXPECT_NE(load_error(R"([{"name": "a", "code": "1", "then": {"setup": []}}])")
                .find("unknown key \"then.setup\""),
            std::string::npos);
  EXPECT_NE(load_error(R"([{"name": "a", "code": "1", "env": {"A": 1}}])")
                .find("\"env\" must be an object of strings"),
            std::string::npos);
  EXPECT_THROW(testing::load_program_corpus("/nonexistent/corpus.json"), testing::CorpusError);
}

// The corpora of every language engine load, built or not (the lead builds them all).
TEST(ProgramCorpus, EveryLanguageCorpusOfTheTreeLoads) {
  int corpora = 0;
  for (const auto& entry : std::filesystem::directory_iterator(SANDBOX_ENGINE_TESTS_DIR)) {
    const auto file = entry.path() / "corpus.json";
    if (!std::filesystem::exists(file)) continue;
    ++corpora;
    EXPECT_NO_THROW({
      try {
        EXPECT_FALSE(testing::load_program_corpus(file).empty()) << file;
      } catch (const testing::CorpusError& e) {
        ADD_FAILURE() << e.what();
      }
    }) << file;
  }
  EXPECT_GE(corpora, 8);  // calc, javascript, kv, lua, perl, python, ruby, wkv
}

TEST(ProgramCorpus, AnOversizedCorpusIsRefused) {
  EXPECT_NE(load_error(std::string(testing::kMaxCorpusFileBytes + 1, ' '))
                .find("larger than kMaxCorpusFileBytes"),
            std::string::npos);
}

}  // namespace
}  // namespace sandbox

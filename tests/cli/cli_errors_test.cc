// `sandbox run` and `sandbox repl` print a guest's error as its language's interpreter does
// (tools/sandbox/error_format.h), against the real sandboxd serving its default engines (the
// built ones but the tests' kv). A language this build has no engine for is skipped.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli_process.h"
#include "server/sandboxd_process.h"

namespace sandbox::test {
namespace {

namespace fs = std::filesystem;

bool built(const std::string& language) {
  const std::string list = "," SANDBOXD_DEFAULT_ENGINES ",";
  return list.find("," + language + ",") != std::string::npos;
}

// One sandboxd for the whole suite: starting the big engines' images is slow.
class CliErrors : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/sandbox-cli-errors-XXXXXX";
    dir_ = new fs::path(mkdtemp(tmpl));
    sandboxd_ = new SandboxdProcess((*dir_ / "data").string(), {});
  }
  static void TearDownTestSuite() {
    delete sandboxd_;
    fs::remove_all(*dir_);
    delete dir_;
  }

  void SetUp() override { ASSERT_TRUE(sandboxd_->started()) << sandboxd_->process().stderr_text(); }

  static CliResult cli(std::vector<std::string> args, const std::string& input = {}) {
    std::vector<std::string> argv = {SANDBOX_CLI_PATH, "--server", sandboxd_->url()};
    for (auto& a : args) argv.push_back(std::move(a));
    return run_process(std::move(argv), input, *dir_);
  }

  static CliResult run(const std::string& language, const std::string& code) {
    return cli({"run", "--sandbox", "errors", "--language", language, code});
  }

  static inline fs::path* dir_ = nullptr;
  static inline SandboxdProcess* sandboxd_ = nullptr;
};

// The first five minutes: no sandbox, no runtime URL, just a language (POST
// /execute/{language} on the real sandboxd), with the code as text and as a file.
TEST_F(CliErrors, StatelessRunOfPythonWithoutASandbox) {
  if (!built("python")) GTEST_SKIP() << "no python engine in this build";
  CliResult r = cli({"run", "--language", "python", "print(1)"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "1\n");
  std::ofstream(*dir_ / "hello.py") << "x = 6 * 7\nprint('hello from a file', x)\n";
  r = cli({"run", "--language", "python", (*dir_ / "hello.py").string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "hello from a file 42\n");
  r = cli({"run", "--language", "python", "raise KeyError('k')"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("KeyError: 'k'"), std::string::npos) << r.err;
}

TEST_F(CliErrors, RunShowsAPythonErrorAsATraceback) {
  if (!built("python")) GTEST_SKIP() << "no python engine in this build";
  const CliResult r = run("python", "def f():\n    raise ValueError('bad value')\n\nf()\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "Traceback (most recent call last):\n"
            "  File \"<input>\", line 4, in <module>\n"
            "  File \"<input>\", line 2, in f\n"
            "ValueError: bad value\n");
}

TEST_F(CliErrors, ReplShowsAPythonSyntaxErrorAsCPythonDoes) {
  if (!built("python")) GTEST_SKIP() << "no python engine in this build";
  const CliResult r =
      cli({"repl", "--sandbox", "errors", "--language", "python"}, "print('out')\nx = (1 +)\n");
  EXPECT_NE(r.out.find("out\n"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("  File \"<input>\", line 1\n    x = (1 +)\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\nSyntaxError: invalid syntax\n"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Traceback"), std::string::npos) << r.err;
}

TEST_F(CliErrors, RunShowsARubyErrorWithItsFramesAndClass) {
  if (!built("ruby")) GTEST_SKIP() << "no ruby engine in this build";
  const CliResult r = run("ruby",
                          "def check(n)\n  raise ArgumentError, 'negative' if n < 0\nend\n"
                          "check(-1)\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "(sandbox):2:in 'Object#check': negative (ArgumentError)\n"
            "\tfrom (sandbox):4:in '<main>'\n");
}

TEST_F(CliErrors, RunShowsAPerlDieMessageAsItIs) {
  if (!built("perl")) GTEST_SKIP() << "no perl engine in this build";
  const CliResult r = run("perl", "print \"before\\n\";\ndie \"broken\";\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "before\n");
  EXPECT_EQ(r.err, "broken at (sandbox) line 2.\n");
}

TEST_F(CliErrors, ReplShowsALuaErrorWithItsStackTraceback) {
  if (!built("lua")) GTEST_SKIP() << "no lua engine in this build";
  const CliResult r = cli({"repl", "--sandbox", "errors", "--language", "lua"},
                          "local function f() error('boom') end f()\n");
  EXPECT_NE(r.err.find("lua: input:1: boom\n"
                       "stack traceback:\n"
                       "\t[C]: in function 'error'\n"
                       "\tinput:1: in local 'f'\n"),
            std::string::npos)
      << r.err;
}

TEST_F(CliErrors, RunShowsAJavaScriptErrorWithItsAtFrames) {
  if (!built("javascript")) GTEST_SKIP() << "no javascript engine in this build";
  const CliResult r = run("javascript", "function f() { throw new TypeError('bad'); }\nf();\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n') + 1), "TypeError: bad\n") << r.err;
  EXPECT_NE(r.err.find("\n    at f (input"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace sandbox::test

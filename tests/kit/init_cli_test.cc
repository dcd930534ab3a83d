// `sandbox init` as a user runs it: the executable, in a temporary directory.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>

namespace {

namespace fs = std::filesystem;

struct CliRun {
  int status;
  std::string output;  // stdout and stderr
};

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

class InitCli : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/init-cli-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { fs::remove_all(dir_); }

  CliRun sandbox(const std::string& args) {
    const std::string command =
        "cd " + quote(dir_.string()) + " && " + quote(SANDBOX_CLI_PATH) + " " + args + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    std::string output;
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    const int status = pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
  }

  fs::path dir_;
};

TEST_F(InitCli, CustomCreatesTheProjectAndSaysWhatToRunNext) {
  const CliRun r = sandbox("init --custom calc2");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Created calc2: a stateless runtime"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  cd calc2\n"), std::string::npos) << r.output;
  // CliRun from the build tree, the kit's prefix is unknown.
  EXPECT_NE(r.output.find("-DCMAKE_PREFIX_PATH=/path/to/the/kit"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(dir_ / "calc2" / "src" / "engine.cc"));
  EXPECT_TRUE(fs::exists(dir_ / "calc2" / "tests" / "conformance_test.cc"));
}

TEST_F(InitCli, CustomTakesADirectory) {
  const CliRun r = sandbox("init --custom calc2 elsewhere/calc");
  EXPECT_EQ(r.status, 2) << r.output;  // elsewhere/ does not exist
  EXPECT_NE(r.output.find("is not a directory"), std::string::npos) << r.output;
  fs::create_directory(dir_ / "elsewhere");
  EXPECT_EQ(sandbox("init --custom calc2 elsewhere/calc").status, 0);
  EXPECT_TRUE(fs::exists(dir_ / "elsewhere" / "calc" / "CMakeLists.txt"));
}

TEST_F(InitCli, RefusesToOverwrite) {
  fs::create_directory(dir_ / "calc2");
  std::ofstream(dir_ / "calc2" / "notes.txt") << "mine";
  const CliRun r = sandbox("init --custom calc2");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("calc2 already exists: sandbox init never overwrites anything"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "calc2" / "CMakeLists.txt"));
}

TEST_F(InitCli, WasmCopiesAnEmbeddedAbiModule) {
  const CliRun r = sandbox("init --custom kv2 --wasm " + quote(SANDBOX_TEST_ABI_GUEST));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("conformance.json"), std::string::npos) << r.output;
  EXPECT_EQ(fs::file_size(dir_ / "kv2" / "wasm" / "kv2.wasm"),
            fs::file_size(SANDBOX_TEST_ABI_GUEST));
  const CliRun bad = sandbox("init --custom lim --wasm " + quote(SANDBOX_TEST_NON_ABI_GUEST));
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.output.find("does not implement the embedded ABI"), std::string::npos)
      << bad.output;
  EXPECT_FALSE(fs::exists(dir_ / "lim"));
}

TEST_F(InitCli, WasmifyCopiesAWasmifyModule) {
  const CliRun r = sandbox("init --custom wkv2 --wasmify " + quote(SANDBOX_TEST_WASMIFY_GUEST));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("complete its driver"), std::string::npos) << r.output;
  EXPECT_EQ(fs::file_size(dir_ / "wkv2" / "wasm" / "wkv2.wasm"),
            fs::file_size(SANDBOX_TEST_WASMIFY_GUEST));
  const CliRun both = sandbox("init --custom x --wasm " + quote(SANDBOX_TEST_ABI_GUEST) +
                              " --wasmify " + quote(SANDBOX_TEST_WASMIFY_GUEST));
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.output.find("give one"), std::string::npos) << both.output;
  const CliRun bad = sandbox("init --custom kv3 --wasmify " + quote(SANDBOX_TEST_ABI_GUEST));
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.output.find("does not implement the wasmify ABI"), std::string::npos) << bad.output;
  EXPECT_FALSE(fs::exists(dir_ / "x"));
  EXPECT_FALSE(fs::exists(dir_ / "kv3"));
}

TEST_F(InitCli, LanguageNeedsALanguageAndADirectory) {
  const CliRun ok = sandbox("init python py-runtime");
  EXPECT_EQ(ok.status, 0) << ok.output;
  EXPECT_NE(ok.output.find("the built-in python engine as a deployable runtime, py_runtime"),
            std::string::npos)
      << ok.output;
  EXPECT_TRUE(fs::exists(dir_ / "py-runtime" / "deploy" / "py_runtime.service"));
  for (const char* args : {"init", "init python", "init python a b", "init --wasm x.wasm kv dir",
                           "init --custom c2 a b", "init cobol dir", "init --custom 9lives",
                           "init --wasmify x.wasm kv dir"}) {
    const CliRun r = sandbox(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.output;
    EXPECT_NE(r.output.find("sandbox: "), std::string::npos) << args << ": " << r.output;
  }
}

}  // namespace

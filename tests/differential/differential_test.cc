// The differential corpus: each program of tests/differential/<language>/ runs in the sandbox
// engine and with the native interpreter (Debian's, scripts/bootstrap.sh installs it), and the
// two transcripts (stdout, stderr, the error message) must be equal. A program whose first line
// carries the language's comment marker followed by "expected-difference: <reason>" must differ
// instead: the difference is documented in docs/languages.md, and the test fails once it is gone
// so that the mark goes too.
//
// Adding a language: a row in languages() and its engine in CMakeLists.txt.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sandbox/engine.h>

#ifdef SANDBOX_DIFFERENTIAL_LUA
#include "lua_engine.h"
#endif
#ifdef SANDBOX_DIFFERENTIAL_JAVASCRIPT
#include "javascript_engine.h"
#endif

namespace sandbox {
namespace {

namespace fs = std::filesystem;

// The native side's error: the message its interpreter printed on stderr, and what that stderr
// held before it (the program's own writes).
struct NativeError {
  std::string message;
  std::string preceding_stderr;
};

struct Language {
  std::string name;       // the directory of its programs
  std::string extension;  // of its program files
  std::string comment;    // a line comment's start, for the expected-difference mark
  // The native interpreter's command; the program file (named "input", in the current
  // directory, so that messages name it as the sandbox does) is appended.
  std::string native_command;
  std::function<Engine()> make_engine;
  // Splits the native stderr of a failed run into the error message and what preceded it.
  std::function<NativeError(const std::string& stderr_text)> native_error;
  // The sandbox's error as the native interpreter shows it; unset: its message alone.
  std::function<std::string(const ExecutionError&)> sandbox_error = nullptr;
};

// lua.c prints "lua5.4: <message>" and, unless __tostring made the message, "\nstack
// traceback:\n..." after it.
NativeError lua_native_error(const std::string& err) {
  static const std::string kPrefix = "lua5.4: ";
  std::size_t start = err.rfind("\n" + kPrefix);
  start = start == std::string::npos ? 0 : start + 1;
  NativeError e{.message = err.substr(start), .preceding_stderr = err.substr(0, start)};
  if (e.message.starts_with(kPrefix)) e.message.erase(0, kPrefix.size());
  if (const std::size_t tb = e.message.rfind("\nstack traceback:\n"); tb != std::string::npos) {
    e.message.erase(tb);
  }
  while (!e.message.empty() && e.message.back() == '\n') e.message.pop_back();
  return e;
}

// node runs with node_uncaught.cjs preloaded, which ends its stderr with "\n--- uncaught ---\n"
// and "Name: message" (or "Uncaught <value>" for a thrown non-error).
NativeError node_native_error(const std::string& err) {
  static const std::string kMarker = "\n--- uncaught ---\n";
  const std::size_t at = err.rfind(kMarker);
  if (at == std::string::npos) return {.message = err, .preceding_stderr = ""};
  NativeError e{.message = err.substr(at + kMarker.size()), .preceding_stderr = err.substr(0, at)};
  while (!e.message.empty() && e.message.back() == '\n') e.message.pop_back();
  return e;
}

// node shows an error as its stack's first line: "Name: message", or "Name" alone.
std::string javascript_sandbox_error(const ExecutionError& e) {
  return e.message.empty() ? e.name : e.name + ": " + e.message;
}

const std::vector<Language>& languages() {
  static const std::vector<Language> all = {
#ifdef SANDBOX_DIFFERENTIAL_LUA
      {.name = "lua",
       .extension = ".lua",
       .comment = "--",
       .native_command = "lua5.4",
       .make_engine = engines::make_lua_engine,
       .native_error = lua_native_error},
#endif
#ifdef SANDBOX_DIFFERENTIAL_JAVASCRIPT
      {.name = "javascript",
       .extension = ".js",
       .comment = "//",
       .native_command = "node --require '" SANDBOX_DIFFERENTIAL_DIR "/node_uncaught.cjs'",
       .make_engine = engines::make_javascript_engine,
       .native_error = node_native_error,
       .sandbox_error = javascript_sandbox_error},
#endif
  };
  return all;
}

struct Program {
  const Language* language;
  fs::path path;
};

// gtest prints a failing parameter with this instead of its bytes.
void PrintTo(const Program& p, std::ostream* os) { *os << p.path.string(); }

std::vector<Program> programs() {
  std::vector<Program> out;
  for (const Language& language : languages()) {
    const fs::path dir = fs::path(SANDBOX_DIFFERENTIAL_DIR) / language.name;
    std::vector<fs::path> paths;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() == language.extension) paths.push_back(entry.path());
    }
    std::sort(paths.begin(), paths.end());
    for (const auto& p : paths) out.push_back({&language, p});
  }
  return out;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// One run's observable behaviour, one entry per line.
std::vector<std::string> transcript(const std::vector<std::string>& out,
                                    const std::vector<std::string>& err,
                                    const std::string* error_message) {
  std::vector<std::string> t;
  for (const auto& l : out) t.push_back("stdout: " + l);
  for (const auto& l : err) t.push_back("stderr: " + l);
  if (error_message) {
    for (const auto& l : split_lines(*error_message)) t.push_back("error: " + l);
  }
  return t;
}

std::vector<std::string> native_transcript(const Program& p, const std::string& code) {
  char dir_template[] = "/tmp/sandbox-differential-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) throw std::runtime_error("mkdtemp failed");
  const fs::path d(dir);
  std::ofstream(d / "input", std::ios::binary) << code;
  // The sandbox runs in UTC with the C locale; the native interpreter must too.
  const std::string command = "cd '" + d.string() + "' && TZ=UTC LC_ALL=C timeout 60 " +
                              p.language->native_command + " input </dev/null >stdout 2>stderr";
  const int status = std::system(command.c_str());
  const std::string out = read_file(d / "stdout");
  const std::string err = read_file(d / "stderr");
  fs::remove_all(d);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) == 127) {
    throw std::runtime_error("cannot run " + p.language->native_command +
                             " (scripts/bootstrap.sh installs it): " + err);
  }
  if (WEXITSTATUS(status) == 0) return transcript(split_lines(out), split_lines(err), nullptr);
  const NativeError e = p.language->native_error(err);
  return transcript(split_lines(out), split_lines(e.preceding_stderr), &e.message);
}

std::vector<std::string> sandbox_transcript(const Language& language, const Engine& engine,
                                            const std::string& code) {
  const EngineOutcome o = engine.run({code, {}});
  std::string error;
  if (o.error) error = language.sandbox_error ? language.sandbox_error(*o.error) : o.error->message;
  std::vector<std::string> t =
      transcript(o.logs.stdout_lines, o.logs.stderr_lines, o.error ? &error : nullptr);
  // A program prints what it shows; a returned value has no native counterpart.
  for (const auto& r : o.results) t.push_back("result: " + (r.text ? *r.text : "(json)"));
  return t;
}

const Engine& engine_for(const Language& language) {
  static std::map<std::string, Engine> engines;
  auto it = engines.find(language.name);
  if (it == engines.end()) it = engines.emplace(language.name, language.make_engine()).first;
  return it->second;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += "  " + l + "\n";
  return s;
}

class Differential : public ::testing::TestWithParam<Program> {};

TEST_P(Differential, MatchesTheNativeInterpreter) {
  const Program& p = GetParam();
  const std::string code = read_file(p.path);
  const std::string mark = p.language->comment + " expected-difference:";
  const bool expected_difference = code.starts_with(mark);
  const auto native = native_transcript(p, code);
  const auto sandboxed = sandbox_transcript(*p.language, engine_for(*p.language), code);
  if (expected_difference) {
    EXPECT_NE(sandboxed, native) << p.path << " now matches " << p.language->native_command
                                 << ": remove its expected-difference mark and the entry in "
                                    "docs/languages.md";
    std::cout << "expected difference (" << p.path.filename().string() << "):\n  native:\n"
              << joined(native) << "  sandbox:\n"
              << joined(sandboxed);
  } else {
    EXPECT_EQ(sandboxed, native) << p.path << "\nnative:\n"
                                 << joined(native) << "sandbox:\n"
                                 << joined(sandboxed);
  }
}

std::string test_name(const ::testing::TestParamInfo<Program>& info) {
  std::string name = info.param.language->name + "_" + info.param.path.stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Corpus, Differential, ::testing::ValuesIn(programs()), test_name);

}  // namespace
}  // namespace sandbox

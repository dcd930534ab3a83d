// The differential corpus: each program of tests/differential/<language>/ runs in the sandbox
// engine and with the native interpreter (Debian's, scripts/bootstrap.sh installs it), and the
// two transcripts (stdout, stderr, the error message) must be equal. A program whose first line
// carries the language's comment marker followed by "expected-difference: <reason>" must differ
// instead: the difference is documented in docs/languages.md, and the test fails once it is gone
// so that the mark goes too.
//
// A program with a line "<comment> differential: workspace" works with files: natively it runs
// in its own empty temporary directory as every program does; in the sandbox, where a stateless
// run has no writable /workspace, it runs as the first call of a new code context over an empty
// /workspace (its cwd). Such a program creates what it uses below the working directory and
// does not list the directory itself (the native one holds the program and its output files).
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
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sandbox/clock.h>
#include <sandbox/engine.h>
#include <sandbox/workspace.h>

#ifdef SANDBOX_DIFFERENTIAL_LUA
#include "lua_engine.h"
#endif
#ifdef SANDBOX_DIFFERENTIAL_JAVASCRIPT
#include "javascript_engine.h"
#endif
#ifdef SANDBOX_DIFFERENTIAL_PYTHON
#include "python_engine.h"
#endif
#ifdef SANDBOX_DIFFERENTIAL_RUBY
#include "ruby_engine.h"
#endif
#ifdef SANDBOX_DIFFERENTIAL_PERL
#include "perl_engine.h"
#endif

namespace sandbox {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

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
  // The native interpreter's command; the program file (named file_name, in the current
  // directory, so that messages name it as the sandbox does) is appended.
  std::string native_command;
  std::function<Engine()> make_engine;
  // Splits the native stderr of a failed run into the error message and what preceded it.
  std::function<NativeError(const std::string& stderr_text)> native_error;
  // The sandbox's error as the native interpreter words its last line (the wire carries the
  // name and the message apart); null: the message alone.
  std::function<std::string(const ExecutionError&)> sandbox_error = nullptr;
  // The name the sandbox gives the program in messages (Ruby's and Perl's "(sandbox)").
  std::string file_name = "input";
  // Python, Ruby and Perl return a program's last value (REPL semantics), which a native
  // script run discards; results count only where a value is returned on purpose (Lua's
  // `return`).
  bool compare_results = true;
};

// lua.c prints "lua5.4: <message>" and, unless __tostring made the message, "\nstack
// traceback:\n..." after it.
[[maybe_unused]] NativeError lua_native_error(const std::string& err) {
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

// CPython prints "Traceback (most recent call last):" (or, for a SyntaxError, the `  File`
// line) and the frames, then "Name: message" last; the name is module-qualified unless the
// class is a builtin ("json.decoder.JSONDecodeError"), which the wire's bare type name is not.
[[maybe_unused]] NativeError python_native_error(const std::string& err) {
  std::size_t start = std::string::npos;
  for (const std::string header : {"Traceback (most recent call last):\n", "  File \""}) {
    for (std::size_t at = err.find(header); at != std::string::npos;
         at = err.find(header, at + 1)) {
      if (at == 0 || err[at - 1] == '\n') {
        start = std::min(start, at);
        break;
      }
    }
  }
  if (start == std::string::npos) return {.message = err, .preceding_stderr = ""};
  NativeError e{.message = "", .preceding_stderr = err.substr(0, start)};
  std::string body = err.substr(start);
  while (!body.empty() && body.back() == '\n') body.pop_back();
  e.message = body.substr(body.rfind('\n') + 1);  // npos + 1 == 0: the whole body
  const std::size_t name_end = std::min(e.message.find(": "), e.message.size());
  if (const std::size_t dot = e.message.rfind('.', name_end);
      dot != std::string::npos && e.message.find(' ') > dot) {
    e.message.erase(0, dot + 1);
  }
  return e;
}

// The final line CPython prints: "Name: message", or "Name" alone; a SyntaxError's str() ends
// in " (<input>, line N)", which the printer leaves out.
[[maybe_unused]] std::string python_sandbox_error(const ExecutionError& error) {
  std::string message = error.message;
  if (error.name == "SyntaxError" || error.name == "IndentationError" || error.name == "TabError") {
    if (const std::size_t at = message.rfind(" (<input>, line "); at != std::string::npos) {
      message.erase(at);
    }
  }
  return message.empty() ? error.name : error.name + ": " + message;
}

// ruby prints "(sandbox):3:in 'method': message (Name)" then "\tfrom ..." frames, then each
// cause as another "(sandbox):..." line; a syntax error is "(sandbox): ..." lines.
[[maybe_unused]] NativeError ruby_native_error(const std::string& err) {
  static const std::string kFile = "(sandbox)";
  std::size_t start = err.starts_with(kFile) ? 0 : err.find("\n" + kFile);
  if (start == std::string::npos) return {.message = err, .preceding_stderr = ""};
  if (start != 0) ++start;
  NativeError e{.message = "", .preceding_stderr = err.substr(0, start)};
  std::string body = err.substr(start);
  if (const std::size_t in = body.find(":in "); in != std::string::npos && in < body.find('\n')) {
    if (const std::size_t colon = body.find(": ", in + 4); colon != std::string::npos) {
      body.erase(0, colon + 2);
    }
  }
  for (const auto& line : split_lines(body)) {
    if (line.starts_with(kFile)) break;  // the causes, which the wire does not carry
    if (!line.starts_with("\tfrom ")) e.message += line + "\n";
  }
  while (!e.message.empty() && e.message.back() == '\n') e.message.pop_back();
  return e;
}

[[maybe_unused]] std::string ruby_sandbox_error(const ExecutionError& error) {
  return error.message + " (" + error.name + ")";
}

// perl prints die's message as it is ("message at (sandbox) line 3.\n"), the last line of
// stderr unless Carp's backtrace ("\tmain::f(1) called at (sandbox) line 5") follows it; what
// comes before is the program's own warnings. A compilation error ends in "Execution of
// (sandbox) aborted due to compilation errors.", which a string eval does not add.
[[maybe_unused]] NativeError perl_native_error(const std::string& err) {
  std::vector<std::string> lines = split_lines(err);
  if (!lines.empty() && lines.back().starts_with("Execution of (sandbox) aborted")) {
    lines.pop_back();
  }
  std::size_t start = lines.empty() ? 0 : lines.size() - 1;
  while (start > 0 && lines[start].starts_with("\t")) --start;
  NativeError e;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    (i < start ? e.preceding_stderr : e.message) += lines[i] + "\n";
  }
  while (!e.message.empty() && e.message.back() == '\n') e.message.pop_back();
  return e;
}

// node runs with node_uncaught.cjs preloaded, which ends its stderr with "\n--- uncaught ---\n"
// and "Name: message" (or "Uncaught <value>" for a thrown non-error).
[[maybe_unused]] NativeError node_native_error(const std::string& err) {
  static const std::string kMarker = "\n--- uncaught ---\n";
  const std::size_t at = err.rfind(kMarker);
  if (at == std::string::npos) return {.message = err, .preceding_stderr = ""};
  NativeError e{.message = err.substr(at + kMarker.size()), .preceding_stderr = err.substr(0, at)};
  while (!e.message.empty() && e.message.back() == '\n') e.message.pop_back();
  return e;
}

// node shows an error as its stack's first line: "Name: message", or "Name" alone.
[[maybe_unused]] std::string javascript_sandbox_error(const ExecutionError& e) {
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
#ifdef SANDBOX_DIFFERENTIAL_PYTHON
      // Debian's interpreter by its full path: `python3` may be another installation's.
      {.name = "python",
       .extension = ".py",
       .comment = "#",
       .native_command = "/usr/bin/python3.11",
       .make_engine = engines::make_python_engine,
       .native_error = python_native_error,
       .sandbox_error = python_sandbox_error,
       .compare_results = false},
#endif
#ifdef SANDBOX_DIFFERENTIAL_RUBY
      // -EUTF-8: under LC_ALL=C, Ruby's external encoding would be US-ASCII and inspect would
      // escape every non-ASCII character; the sandbox's Ruby runs in UTF-8.
      {.name = "ruby",
       .extension = ".rb",
       .comment = "#",
       .native_command = "ruby -EUTF-8",
       .make_engine = engines::make_ruby_engine,
       .native_error = ruby_native_error,
       .sandbox_error = ruby_sandbox_error,
       .file_name = "(sandbox)",
       .compare_results = false},
#endif
#ifdef SANDBOX_DIFFERENTIAL_PERL
      {.name = "perl",
       .extension = ".pl",
       .comment = "#",
       .native_command = "perl",
       .make_engine = engines::make_perl_engine,
       .native_error = perl_native_error,
       .file_name = "(sandbox)",
       .compare_results = false},
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
  std::ofstream(d / p.language->file_name, std::ios::binary) << code;
  // The sandbox runs in UTC with the C locale; the native interpreter must too.
  const std::string command = "cd '" + d.string() + "' && TZ=UTC LC_ALL=C timeout 60 " +
                              p.language->native_command + " '" + p.language->file_name +
                              "' </dev/null >stdout 2>stderr";
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

// Whether the program carries the "differential: workspace" line (see the top of this file).
bool uses_workspace(const Language& language, const std::string& code) {
  const std::string mark = language.comment + " differential: workspace";
  for (const auto& line : split_lines(code)) {
    if (line == mark) return true;
  }
  return false;
}

// The program as the first call of a new code context over an empty /workspace.
EngineOutcome run_in_context(const Engine& engine, const std::string& code) {
  if (!engine.sessions) throw std::runtime_error("the engine has no code contexts");
  ManualClock clock;
  Workspace workspace(clock);
  const std::unique_ptr<SessionInstance> session =
      engine.sessions->boot(SessionOptions{.workspace = &workspace});
  return session->execute({code, {}});
}

std::vector<std::string> sandbox_transcript(const Language& language, const Engine& engine,
                                            const std::string& code) {
  const EngineOutcome o =
      uses_workspace(language, code) ? run_in_context(engine, code) : engine.run({code, {}});
  std::string error;
  if (o.error) {
    error = language.sandbox_error ? language.sandbox_error(*o.error) : o.error->message;
  }
  std::vector<std::string> t =
      transcript(o.logs.stdout_lines, o.logs.stderr_lines, o.error ? &error : nullptr);
  // A program prints what it shows; a returned value has no native counterpart.
  if (language.compare_results) {
    for (const auto& r : o.results) t.push_back("result: " + (r.text ? *r.text : "(json)"));
  }
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

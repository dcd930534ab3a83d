// The `sandbox` CLI against sandboxd's core served in process: run (in a sandbox and on a
// runtime), files, contexts, info, languages, exit statuses, and the REPL driven through a
// pseudo-terminal across a sandboxd restart.
#include <chrono>
#include <fstream>
#include <iterator>
#include <optional>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <sandbox/protocol.h>
#include <sandbox/version.h>

#include "cli/cli_process.h"
#include "server/sandboxd_fixture.h"

namespace sandbox::test {
namespace {

class Cli : public ::testing::Test {
 protected:
  void SetUp() override { start(); }

  void start(const std::string& listen = "127.0.0.1:0") {
    d_.reset();
    SandboxdFixtureOptions o;
    o.engines = {"kv", "calc", "lua"};
    o.db_path = dir_.file("sandboxd.db");
    o.listen = listen;
    d_ = std::make_unique<InProcessSandboxd>(o);
  }

  // Runs the CLI with `args` (after --server URL) and `input` on its standard input, in `cwd`
  // when one is given.
  CliResult cli(std::vector<std::string> args, const std::string& input = {},
                const std::filesystem::path& cwd = {}) {
    std::vector<std::string> argv = {SANDBOX_CLI_PATH, "--server", d_->url()};
    for (auto& a : args) argv.push_back(std::move(a));
    return run_process(std::move(argv), input, dir_.path(), cwd);
  }

  TempDir dir_;
  std::unique_ptr<InProcessSandboxd> d_;
};

TEST_F(Cli, RunInASandboxAndOnARuntime) {
  auto r = cli({"run", "--sandbox", "c1", "--binding", "KV", "incr n"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "1\n");
  r = cli({"run", "--sandbox", "c1", "--language", "kv", "-"}, "incr n\nprint counted\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "counted\n2\n");  // guest output first, then the result

  r = cli({"run", "--sandbox", "c1", "--binding", "KV", "fail boom"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("KvError: boom"), std::string::npos) << r.err;

  std::ofstream(dir_.file("prog.lua"))
      << "return (os.getenv('A') or 'nil') .. (os.getenv('B') or 'nil')";
  cli({"run", "--sandbox", "c1", "--language", "lua", "--env", "B=b", "1"});
  r = cli({"run", "--sandbox", "c1", "--language", "lua", "--env", "A=a", "--unset", "B", "--file",
           dir_.file("prog.lua")});
  EXPECT_EQ(r.out, "\"anil\"\n") << r.err;

  r = cli({"run", "--url", d_->url() + "/runtimes/CALC", "--env", "x=4", "x * x"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "16\n");

  r = cli({"run", "--sandbox", "c1", "--binding", "NOPE", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "sandbox: Unknown binding 'NOPE' (VALIDATION_FAILED, HTTP 400)\n");
  r = cli({"run", "--sandbox", "c1", "--language", "cobol", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no binding runs 'cobol'"), std::string::npos) << r.err;
  r = cli({"run", "--sandbox", "-x", "--binding", "KV", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cannot start or end with a hyphen"), std::string::npos) << r.err;
  r = cli({"run", "--sandbox", "c1", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "sandbox: pass --binding, --language or --context\n");
}

// Without --sandbox (and without --url), `run` is a stateless execute on --server's binding
// (POST /execute/{language}): nothing is kept from one run to the next.
TEST_F(Cli, RunWithoutASandboxIsStatelessOnSandboxd) {
  auto r = cli({"run", "--language", "calc", "6 * 7"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "42\n");
  for (int i = 0; i < 2; ++i) {
    r = cli({"run", "--binding", "KV", "incr n"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "1\n");  // a fresh interpreter each time
  }
  r = cli({"run", "--language", "lua", "--env", "A=a", "--env", "B=b", "--unset", "B",
           "print(os.getenv('A')) return os.getenv('B') or 'nil'"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "a\n\"nil\"\n");
  r = cli({"run", "--language", "kv", "fail boom"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("KvError: boom"), std::string::npos) << r.err;

  r = cli({"run", "--language", "cobol", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "sandbox: no binding runs 'cobol' on " + d_->url() + " (available: kv, calc, lua)\n");
  r = cli({"run", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "sandbox: pass --language L (or --binding B) to run statelessly on " +
                       d_->url() + ", --sandbox ID to run in a sandbox, or --url URL to run on a " +
                       "runtime\n");
  r = cli({"run", "--language", "kv", "--context", "c", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "sandbox: --context needs --sandbox ID\n");
  r = cli({"run", "--language", "kv", "--binding", "KV", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "sandbox: pass --binding or --language, not both\n");
  r = cli({"run", "--url", d_->url() + "/runtimes/CALC", "--language", "calc", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "sandbox: --url runs on that runtime's language: drop --binding/--language\n");

  // The server is not there: a transport error, exit 2.
  const std::string url = d_->url();
  d_.reset();
  r = run_process({SANDBOX_CLI_PATH, "--server", url, "run", "--language", "calc", "1"}, "",
                  dir_.path());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cannot connect"), std::string::npos) << r.err;
}

// A positional SOURCE naming an existing file runs its contents (as `python FILE` does); -c
// runs the text even when a file has that name; limits and non-files are clear errors.
TEST_F(Cli, RunTakesAFileAsItsSource) {
  const auto calc = [&](std::vector<std::string> args, const std::string& input = {}) {
    args.insert(args.begin(), {"run", "--language", "calc"});
    return cli(std::move(args), input, dir_.path());
  };
  std::ofstream(dir_.file("6 * 7")) << "1 + 1";
  auto r = calc({"6 * 7"});  // relative to the working directory
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "2\n");
  r = calc({dir_.file("6 * 7")});
  EXPECT_EQ(r.out, "2\n") << r.err;
  r = calc({"-c", "6 * 7"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "42\n");
  r = calc({"--code", "6 * 6"});
  EXPECT_EQ(r.out, "36\n") << r.err;
  r = calc({"--file", "6 * 7"});
  EXPECT_EQ(r.out, "2\n") << r.err;
  r = calc({"-"}, "3 * 3");
  EXPECT_EQ(r.out, "9\n") << r.err;
  // The same in a sandbox.
  r = cli({"run", "--sandbox", "s1", "--language", "calc", "6 * 7"}, "", dir_.path());
  EXPECT_EQ(r.out, "2\n") << r.err;

  r = calc({"-c", "1", "2"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "sandbox: pass the code one way: SOURCE, -c CODE or --file PATH\n");
  r = calc({"--file", "nothing-here"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "sandbox: cannot read nothing-here: no such file\n");

  std::filesystem::create_directory(dir_.file("adir"));
  r = calc({"adir"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "sandbox: cannot run adir: it is a directory\n");
  r = calc({"/dev/null"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "sandbox: cannot run /dev/null: not a regular file\n");

  // The code limit (kMaxCodeBytes): a file at it is sent, one byte over is refused unread.
  std::ofstream(dir_.file("at-limit")) << "1" << std::string(kMaxCodeBytes - 1, ' ');
  r = calc({"at-limit"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "1\n");
  std::ofstream(dir_.file("over-limit")) << "1" << std::string(kMaxCodeBytes, ' ');
  r = calc({"over-limit"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "sandbox: over-limit (65537 bytes) is over the code limit of 65536 bytes\n");
  r = calc({"--file", "over-limit"});
  EXPECT_EQ(r.status, 2);
  r = calc({"-"}, "1" + std::string(kMaxCodeBytes, ' '));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "sandbox: standard input is over the code limit of 65536 bytes\n");

  // Unreadable: root reads any file, so this part needs another user.
  std::ofstream(dir_.file("secret")) << "1";
  std::filesystem::permissions(dir_.file("secret"), std::filesystem::perms::none);
  if (geteuid() != 0) {
    r = calc({"secret"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "sandbox: cannot read secret: Permission denied\n");
  }
}

// --version answers the same on every command path, before any other check (a subcommand's
// required options and arguments included).
TEST_F(Cli, VersionOnEveryCommandPath) {
  const auto top = run_process({SANDBOX_CLI_PATH, "--version"}, "", dir_.path());
  EXPECT_EQ(top.status, 0) << top.err;
  EXPECT_EQ(top.out, "sandbox " + std::string(kVersion) + "\n");
  for (const std::vector<std::string>& path :
       std::vector<std::vector<std::string>>{{"run"},
                                             {"run", "--sandbox", "x", "code"},
                                             {"repl"},
                                             {"files"},
                                             {"files", "ls"},
                                             {"files", "--sandbox", "x", "cat"},
                                             {"files", "put"},
                                             {"files", "rm"},
                                             {"files", "mkdir"},
                                             {"contexts"},
                                             {"contexts", "ls"},
                                             {"contexts", "new"},
                                             {"contexts", "rm"},
                                             {"info"},
                                             {"languages"},
                                             {"mcp"},
                                             {"init"},
                                             {"init", "--custom", "x"}}) {
    std::vector<std::string> argv = {SANDBOX_CLI_PATH};
    argv.insert(argv.end(), path.begin(), path.end());
    argv.push_back("--version");
    const auto r = run_process(argv, "", dir_.path());
    std::string joined;
    for (const auto& p : path) joined += p + " ";
    EXPECT_EQ(r.status, 0) << joined << r.err;
    EXPECT_EQ(r.out, top.out) << joined;
    EXPECT_EQ(r.err, "") << joined;
  }
}

TEST_F(Cli, Files) {
  auto r = cli({"files", "put", "--sandbox", "f1", "/workspace/a.txt", "-"}, "from stdin");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "wrote /workspace/a.txt (10 bytes)\n");
  std::ofstream(dir_.file("local.bin"), std::ios::binary) << std::string("\x00\x01\xff", 3);
  r = cli({"files", "put", "--sandbox", "f1", "bin/x.bin", dir_.file("local.bin")});
  EXPECT_EQ(r.status, 2);  // no bin/ directory yet
  EXPECT_NE(r.err.find("FILE_NOT_FOUND"), std::string::npos) << r.err;
  EXPECT_EQ(cli({"files", "mkdir", "--sandbox", "f1", "-p", "bin/deep"}).out,
            "created /workspace/bin/deep\n");
  EXPECT_EQ(cli({"files", "put", "--sandbox", "f1", "bin/x.bin", dir_.file("local.bin")}).status,
            0);
  cli({"files", "put", "--sandbox", "f1", ".secret", "--content", "s"});

  r = cli({"files", "cat", "--sandbox", "f1", "bin/x.bin"});
  EXPECT_EQ(r.out, std::string("\x00\x01\xff", 3));
  r = cli({"files", "ls", "--sandbox", "f1"});
  EXPECT_NE(r.out.find(" a.txt\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" bin/\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(".secret"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("deep"), std::string::npos) << r.out;
  r = cli({"files", "ls", "--sandbox", "f1", "-r", "-a"});
  EXPECT_NE(r.out.find(" bin/deep/\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" .secret\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-rw-r--r--         3 "), std::string::npos) << r.out;

  // A guest reads what the CLI wrote.
  r = cli({"run", "--sandbox", "f1", "--binding", "KV", "read a.txt"});
  EXPECT_EQ(r.out, "from stdin\n");

  EXPECT_EQ(cli({"files", "rm", "--sandbox", "f1", "bin"}).status, 2);
  EXPECT_EQ(cli({"files", "rm", "--sandbox", "f1", "-r", "bin"}).out, "removed /workspace/bin\n");
  r = cli({"files", "cat", "--sandbox", "f1", "bin/x.bin"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "sandbox: No such file: /workspace/bin/x.bin (FILE_NOT_FOUND, HTTP 404)\n");
  EXPECT_EQ(cli({"files", "rm", "--sandbox", "f1", "-f", "nothing"}).status, 0);
}

TEST_F(Cli, ContextsInfoAndLanguages) {
  cli({"files", "mkdir", "--sandbox", "x1", "sub"});
  auto r = cli({"contexts", "new", "--sandbox", "x1", "--language", "kv", "--cwd", "sub"});
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string id = r.out.substr(0, r.out.find('\n'));
  EXPECT_EQ(id.size(), 36u);
  r = cli({"run", "--sandbox", "x1", "--context", id, "incr n"});
  EXPECT_EQ(r.out, "1\n");
  r = cli({"contexts", "ls", "--sandbox", "x1"});
  EXPECT_EQ(r.out.rfind(id + "  KV  kv  /workspace/sub  created ", 0), 0u) << r.out;

  r = cli({"info", "--sandbox", "x1"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("sandbox:    x1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("contexts:   1\n"), std::string::npos) << r.out;
  EXPECT_NE(
      r.out.find(id + "  KV (kv, kv 1.0 / sandbox-workers)  cwd /workspace/sub  1 executions"),
      std::string::npos)
      << r.out;
  r = cli({"info", "--url", d_->url() + "/runtimes/LUA"});
  EXPECT_EQ(r.out.rfind("language: lua\n", 0), 0u) << r.out;

  EXPECT_EQ(cli({"contexts", "rm", "--sandbox", "x1", id}).out, "deleted " + id + "\n");
  r = cli({"contexts", "rm", "--sandbox", "x1", id});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("CONTEXT_NOT_FOUND, HTTP 404"), std::string::npos) << r.err;
  EXPECT_EQ(cli({"contexts", "ls", "--sandbox", "x1"}).out, "");

  r = cli({"languages"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("kv          KV          kv          contexts  kv 1.0", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("calc        CALC        calc        stateless calc 1.0"), std::string::npos)
      << r.out;
}

// A child on a pseudo-terminal: write keystrokes, read until some text shows up.
class PtySession {
 public:
  explicit PtySession(std::vector<std::string> argv) {
    pid_ = forkpty(&master_, nullptr, nullptr, nullptr);
    if (pid_ == 0) {
      closefrom(3);
      std::vector<char*> raw;
      for (auto& a : argv) raw.push_back(a.data());
      raw.push_back(nullptr);
      execv(raw[0], raw.data());
      _exit(127);
    }
  }
  ~PtySession() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (master_ >= 0) close(master_);
  }

  void type(const std::string& text) {
    ASSERT_EQ(write(master_, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }

  // Reads until `needle` appears after what earlier calls consumed; returns everything read up
  // to and including it ("" on timeout or end of output).
  std::string expect(const std::string& needle,
                     std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (const auto at = pending_.find(needle); at != std::string::npos) {
        std::string out = pending_.substr(0, at + needle.size());
        pending_.erase(0, at + needle.size());
        return out;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return "";
      pollfd p{master_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) return "";
      char buf[4096];
      const ssize_t n = read(master_, buf, sizeof buf);
      if (n <= 0) return "";
      pending_.append(buf, static_cast<std::size_t>(n));
    }
  }

  // The child's exit status; -1 when it did not exit within `timeout` (it is then killed), so a
  // REPL that missed a key fails the test instead of hanging it.
  int wait_exit(std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int st = 0;
    while (waitpid(pid_, &st, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() >= deadline) return -1;  // the destructor kills it
      usleep(2000);
    }
    pid_ = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }

  const std::string& pending() const { return pending_; }

  // Waits until the child reads its terminal in raw mode (a line editor waiting for keys): keys
  // typed while the terminal is canonical are taken by the line discipline (Ctrl-R reprints the
  // line there). The pty's master shares the terminal's settings.
  bool wait_raw_mode(std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (termios t{}; std::chrono::steady_clock::now() < deadline;) {
      if (tcgetattr(master_, &t) == 0 && (t.c_lflag & ICANON) == 0) return true;
      usleep(2000);
    }
    return false;
  }

 private:
  pid_t pid_ = -1;
  int master_ = -1;
  std::string pending_;
};

TEST_F(Cli, ReplKeepsStateAcrossLinesAndAcrossARestart) {
  PtySession repl(
      {SANDBOX_CLI_PATH, "--server", d_->url(), "repl", "--sandbox", "r1", "--language", "lua"});
  ASSERT_NE(repl.expect("sandbox repl: sandbox r1, binding LUA"), "") << repl.pending();
  ASSERT_NE(repl.expect(">>> "), "");

  repl.type("n = 40\n");
  ASSERT_NE(repl.expect(">>> "), "") << repl.pending();
  repl.type("t = {\n");
  ASSERT_NE(repl.expect("... "), "") << repl.pending();  // inside an open bracket
  repl.type("1, 2 }\n");
  ASSERT_NE(repl.expect(">>> "), "") << repl.pending();
  repl.type("function inc(a) \\\n");
  ASSERT_NE(repl.expect("... "), "") << repl.pending();  // continued with a backslash
  repl.type("return a + #t end\n");
  ASSERT_NE(repl.expect(">>> "), "") << repl.pending();
  repl.type("inc(n)\n");
  std::string shown = repl.expect(">>> ");
  EXPECT_NE(shown.find("42"), std::string::npos) << shown;

  repl.type("print('out') error('boom')\n");
  shown = repl.expect(">>> ");
  EXPECT_NE(shown.find("out"), std::string::npos) << shown;
  EXPECT_NE(shown.find("lua: input:1: boom"), std::string::npos) << shown;  // error_format.h

  // sandboxd restarts on the same port and database: the context's state comes back.
  const std::string listen = "127.0.0.1:" + std::to_string(d_->port());
  d_.reset();
  repl.type("n\n");
  shown = repl.expect(">>> ");
  EXPECT_NE(shown.find("sandbox: "), std::string::npos) << "the request fails meanwhile: " << shown;
  start(listen);
  repl.type("inc(n) + 100\n");
  shown = repl.expect(">>> ");
  EXPECT_NE(shown.find("142"), std::string::npos) << shown;

  repl.type(".exit\n");
  EXPECT_EQ(repl.wait_exit(), 0);
}

TEST_F(Cli, ReplEndsAtEndOfInput) {
  PtySession repl(
      {SANDBOX_CLI_PATH, "--server", d_->url(), "repl", "--sandbox", "r2", "--binding", "KV"});
  ASSERT_NE(repl.expect(">>> "), "");
  repl.type("incr n\n");
  EXPECT_NE(repl.expect("1"), "");
  ASSERT_NE(repl.expect(">>> "), "");
  ASSERT_TRUE(repl.wait_raw_mode());  // a Ctrl-D before the editor reads is dropped (see below)
  repl.type("\x04");                  // Ctrl-D
  EXPECT_EQ(repl.wait_exit(), 0);
}

// `sandbox run` prints guest output as it arrives (docs/protocol.md#streaming-output): the first
// line reaches the CLI's stdout (a pipe) while the CLI is still waiting for the rest.
TEST_F(Cli, RunPrintsStreamedOutputAsItArrives) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const std::string code =
      "print('start') io.stdout:flush() local x = 0 for i = 1, 12000000 do x = x + i end "
      "print('end') return 3";
  std::vector<std::string> argv = {SANDBOX_CLI_PATH, "--server",   d_->url(), "run", "--sandbox",
                                   "live",           "--language", "lua",     code};
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipe_fds[1], 1);
    closefrom(3);
    std::vector<char*> raw;
    for (auto& a : argv) raw.push_back(a.data());
    raw.push_back(nullptr);
    execv(raw[0], raw.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  std::string out;
  char buf[256];
  bool running_after_first_line = false;
  for (;;) {
    const ssize_t n = read(pipe_fds[0], buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    if (!running_after_first_line && out.find("start\n") != std::string::npos &&
        out.find("end") == std::string::npos) {
      int st = 0;
      running_after_first_line = waitpid(pid, &st, WNOHANG) == 0;
    }
  }
  close(pipe_fds[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  EXPECT_EQ(out, "start\nend\n3\n");
  EXPECT_TRUE(running_after_first_line) << "the first line came only with the answer";
}

}  // namespace
}  // namespace sandbox::test

namespace sandbox::test {
namespace {

// Sets an environment variable for the test's lifetime (the REPL children inherit it).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// On a terminal the REPL edits lines with libedit: its history file under $HOME outlives the
// session (up-arrow recalls the previous session's line), arrow keys edit the line, Ctrl-R
// searches the history, and the multi-line rules still group lines into one submission.
TEST_F(Cli, ReplHistoryPersistsAcrossSessionsAndLinesAreEditable) {
  ScopedEnv home("HOME", dir_.path().string());
  ScopedEnv term("TERM", "xterm");
  const std::vector<std::string> argv = {SANDBOX_CLI_PATH, "--server", d_->url(),    "repl",
                                         "--sandbox",      "h1",       "--language", "lua"};
  {
    PtySession repl(argv);
    ASSERT_NE(repl.expect(">>> "), "") << repl.pending();
    repl.type("n = 40\n");
    ASSERT_NE(repl.expect(">>> "), "") << repl.pending();
    repl.type("t = {\n");  // an open bracket continues the submission
    ASSERT_NE(repl.expect("... "), "") << repl.pending();
    repl.type("n }\n");
    ASSERT_NE(repl.expect(">>> "), "") << repl.pending();
    repl.type("t[1] * 3\n");
    EXPECT_NE(repl.expect("120"), "") << repl.pending();
    ASSERT_NE(repl.expect(">>> "), "") << repl.pending();
    repl.type("n + 2\n");
    EXPECT_NE(repl.expect("42"), "") << repl.pending();
    ASSERT_NE(repl.expect(">>> "), "") << repl.pending();
    // A Ctrl-D typed while the terminal is still canonical is an end of file in the line
    // discipline's buffer, which the switch to raw mode drops: wait for the editor first.
    ASSERT_TRUE(repl.wait_raw_mode());
    repl.type("\x04");  // Ctrl-D
    EXPECT_EQ(repl.wait_exit(), 0);
  }
  struct stat st{};
  ASSERT_EQ(stat(dir_.file(".sandbox_history").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  // Results are awaited by their text: libedit redraws the prompt while a line is edited.
  PtySession repl(argv);
  ASSERT_NE(repl.expect(">>> "), "") << repl.pending();
  ASSERT_TRUE(repl.wait_raw_mode());
  repl.type("\x1b[A\n");  // up-arrow: "n + 2", the previous session's last line
  EXPECT_NE(repl.expect("42"), "") << repl.pending();
  ASSERT_NE(repl.expect(">>> "), "") << repl.pending();
  ASSERT_TRUE(repl.wait_raw_mode());
  repl.type("n1\x1b[D+\n");  // left arrow, then "+": "n+1"
  EXPECT_NE(repl.expect("41"), "") << repl.pending();
  ASSERT_NE(repl.expect(">>> "), "") << repl.pending();
  ASSERT_TRUE(repl.wait_raw_mode());
  repl.type("\x12t[1]\n");  // Ctrl-R: the last line containing "t[1]"
  EXPECT_NE(repl.expect("120"), "") << repl.pending();
  ASSERT_NE(repl.expect(">>> "), "") << repl.pending();
  ASSERT_TRUE(repl.wait_raw_mode());
  repl.type(".exit\n");
  EXPECT_EQ(repl.wait_exit(), 0);
}

}  // namespace
}  // namespace sandbox::test

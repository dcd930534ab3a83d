// Test helper: runs a real executable (sandboxd) as a child process, waits for its
// "listening on http://HOST:PORT" line, and stops it with SIGTERM. stderr (the request log) goes
// to a file that output() reads.
#pragma once

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sandbox::test {

class ChildProcess {
 public:
  // Starts `argv` with `env` added to the environment and `cwd` as its working directory.
  ChildProcess(std::vector<std::string> argv, std::vector<std::string> env = {},
               std::string cwd = {}, std::string stderr_path = {})
      : stderr_path_(std::move(stderr_path)) {
    if (!stderr_path_.empty()) {
      std::filesystem::create_directories(std::filesystem::path(stderr_path_).parent_path());
    }
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      dup2(out[1], 1);
      close(out[0]);
      close(out[1]);
      if (!stderr_path_.empty()) {
        const int fd = open(stderr_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) dup2(fd, 2);
      }
      closefrom(3);  // the test's own sockets stay out of the child
      if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
      for (const auto& e : env) putenv(const_cast<char*>(e.c_str()));
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    close(out[1]);
    stdout_fd_ = out[0];
  }

  ~ChildProcess() {
    stop();
    if (stdout_fd_ >= 0) close(stdout_fd_);
  }

  // Reads stdout until `pattern` matches a line or the process exits or `timeout` passes.
  // Returns the matching line's first capture group (or the line), "" on failure.
  std::string wait_for_line(const std::regex& pattern,
                            std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        const std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        stdout_ += line + "\n";
        std::smatch m;
        if (std::regex_search(line, m, pattern)) return m.size() > 1 ? m[1].str() : line;
        continue;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return "";
      pollfd p{stdout_fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) return "";
      char chunk[4096];
      const ssize_t n = read(stdout_fd_, chunk, sizeof chunk);
      if (n <= 0) return "";
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

  // Waits for the process to exit by itself; returns its exit status (or -signal).
  int wait_exit() {
    if (pid_ <= 0) return status_;
    int st = 0;
    waitpid(pid_, &st, 0);
    pid_ = -1;
    status_ = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
    return status_;
  }

  // SIGTERM and wait (graceful stop).
  int stop() {
    if (pid_ > 0) kill(pid_, SIGTERM);
    return wait_exit();
  }

  std::string stdout_text() const { return stdout_; }
  std::string stderr_text() const {
    std::ifstream in(stderr_path_);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  int status_ = 0;
  std::string buffer_;
  std::string stdout_;
  std::string stderr_path_;
};

// A sandboxd child: `args` after the executable; waits until it listens.
class SandboxdProcess {
 public:
  SandboxdProcess(const std::string& data_dir, std::vector<std::string> args,
                  std::vector<std::string> env = {})
      : child_(make_argv(data_dir, std::move(args)), std::move(env), {}, data_dir + ".stderr.log") {
    port_ = child_.wait_for_line(std::regex(R"(listening on http://[^:]+:(\d+))"));
  }

  bool started() const { return !port_.empty(); }
  std::string url() const { return "http://127.0.0.1:" + port_; }
  ChildProcess& process() { return child_; }
  int stop() { return child_.stop(); }

 private:
  static std::vector<std::string> make_argv(const std::string& data_dir,
                                            std::vector<std::string> args) {
    std::vector<std::string> argv = {SANDBOXD_PATH, "--data", data_dir};
    bool has_listen = false;
    for (const auto& a : args) has_listen = has_listen || a == "--listen";
    if (!has_listen) {
      argv.emplace_back("--listen");
      argv.emplace_back("127.0.0.1:0");
    }
    for (auto& a : args) argv.push_back(std::move(a));
    return argv;
  }

  ChildProcess child_;
  std::string port_;
};

}  // namespace sandbox::test

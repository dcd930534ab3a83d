// Runs the `sandbox` CLI as a child process with `input` on its standard input and returns its
// exit status and output; shared by the CLI test suites. The files live in `dir`.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sandbox::test {

struct CliResult {
  int status = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// `argv[0]` is the program; stdin, stdout and stderr go through files in `dir`. The child runs
// in `cwd` when one is given (else in the test's working directory).
inline CliResult run_process(std::vector<std::string> argv, const std::string& input,
                             const std::filesystem::path& dir,
                             const std::filesystem::path& cwd = {}) {
  const std::filesystem::path in_path = dir / "stdin", out_path = dir / "stdout",
                              err_path = dir / "stderr";
  std::ofstream(in_path, std::ios::binary) << input;
  const pid_t pid = fork();
  if (pid == 0) {
    const int in = open(in_path.c_str(), O_RDONLY);
    const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    closefrom(3);  // the test's own sockets (a server's listener) stay out of the child
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    std::vector<char*> raw;
    for (auto& a : argv) raw.push_back(a.data());
    raw.push_back(nullptr);
    execv(raw[0], raw.data());
    _exit(127);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  return CliResult{WIFEXITED(st) ? WEXITSTATUS(st) : -1, slurp(out_path), slurp(err_path)};
}

}  // namespace sandbox::test

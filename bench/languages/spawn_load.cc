// spawn-load: the process-per-call baseline of bench/run (the Piston/Judge0 model): spawns a
// command N times, one after another, and times each from posix_spawn to its exit.
//
//   spawn-load -n 30 [--expect TEXT] -- lua5.4 -e 'print(1+1)'
//
// Prints one line: `p50=<ms> p99=<ms> calls/s=<n> n=<runs>`. Every run's standard output is
// read through a pipe (as a judge would); --expect fails the run unless the first output
// contains TEXT, so a misspelt command cannot pass for a fast one.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace {

// Runs argv once; returns its standard output, or exits on a spawn failure or non-zero exit.
std::string run_once(std::vector<char*>& argv) {
  int out[2];
  if (pipe(out) != 0) {
    std::perror("spawn-load: pipe");
    std::exit(2);
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  posix_spawn_file_actions_addclose(&actions, out[1]);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (rc != 0) {
    std::fprintf(stderr, "spawn-load: cannot run %s: %s\n", argv[0], std::strerror(rc));
    std::exit(2);
  }
  std::string output;
  char buffer[4096];
  for (ssize_t n; (n = read(out[0], buffer, sizeof buffer)) > 0;) output.append(buffer, n);
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "spawn-load: %s failed (status %d)\n", argv[0], status);
    std::exit(1);
  }
  return output;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 30;
  std::string expect;
  int i = 1;
  for (; i < argc; ++i) {
    if (std::strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--expect") == 0 && i + 1 < argc) {
      expect = argv[++i];
    } else if (std::strcmp(argv[i], "--") == 0) {
      ++i;
      break;
    } else {
      break;
    }
  }
  if (i >= argc) {
    std::fprintf(stderr, "usage: spawn-load [-n RUNS] [--expect TEXT] -- COMMAND [ARGS...]\n");
    return 2;
  }
  std::vector<char*> command(argv + i, argv + argc);
  command.push_back(nullptr);

  using Clock = std::chrono::steady_clock;
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    const auto t = Clock::now();
    const std::string output = run_once(command);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
    if (r == 0 && output.find(expect) == std::string::npos) {
      std::fprintf(stderr, "spawn-load: output of %s lacks '%s': %s\n", command[0], expect.c_str(),
                   output.c_str());
      return 1;
    }
  }
  double total = 0;
  for (double m : ms) total += m;
  std::sort(ms.begin(), ms.end());
  const auto pct = [&](double p) {
    return ms[std::min(ms.size() - 1,
                       static_cast<std::size_t>(p * static_cast<double>(ms.size())))];
  };
  std::printf("p50=%.3f p99=%.3f calls/s=%.1f n=%d\n", pct(0.5), pct(0.99), 1000.0 * runs / total,
              runs);
  return 0;
}

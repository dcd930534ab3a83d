// sandbox: the command-line client.
//
//   sandbox run --url URL [--env K=V]... (CODE | --file PATH | -)
//   sandbox info --url URL
//
// Exit status: 0 on success, 1 when the guest raised an error (or hit a limit), 2 when the
// request failed (bad input, server unreachable, an error response).
#include <sandbox/client.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include <CLI/CLI.hpp>
#include <boost/json/serialize.hpp>

namespace {

constexpr int kGuestError = 1;
constexpr int kRequestFailed = 2;

std::string read_all(std::istream& in) {
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void print_result(const sandbox::ExecutionResult& r) {
  for (const auto& line : r.outcome.logs.stdout_lines) std::cout << line << "\n";
  for (const auto& line : r.outcome.logs.stderr_lines) std::cerr << line << "\n";
  for (const auto& entry : r.outcome.results) {
    if (entry.json) {
      std::cout << boost::json::serialize(*entry.json) << "\n";
    } else if (entry.text) {
      std::cout << *entry.text << "\n";
    }
  }
  if (r.outcome.error) {
    const auto& e = *r.outcome.error;
    std::cerr << e.name << ": " << e.message << "\n";
    for (const auto& line : e.traceback) std::cerr << "  " << line << "\n";
  }
  std::cout.flush();
}

int report_failure(const sandbox::SandboxError& e) {
  std::cerr << "sandbox: " << e.what();
  if (e.http_status() != 0) {
    std::cerr << " (" << sandbox::error_code_name(e.code()) << ", HTTP " << e.http_status() << ")";
  }
  std::cerr << "\n";
  return kRequestFailed;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sandbox: run code in sandbox-workers runtimes and sandboxes"};
  app.require_subcommand(1);

  std::string url;
  std::vector<std::string> env;
  std::string file;
  std::string code;
  auto* run = app.add_subcommand("run", "Run code (stateless) on a runtime server");
  run->add_option("--url", url, "Runtime URL, e.g. http://127.0.0.1:8080")->required();
  run->add_option("--env", env, "Environment variable NAME=VALUE (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--file", file, "Read the code from a file");
  run->add_option("code", code, "The code to run, or - to read it from standard input");

  auto* info = app.add_subcommand("info", "Show what a runtime server runs");
  info->add_option("--url", url, "Runtime URL")->required();

  CLI11_PARSE(app, argc, argv);

  try {
    if (*info) {
      const auto i = sandbox::probe_runtime(url);
      std::cout << "language: " << i.language << "\nengine:   " << i.engine
                << "\ncontexts: " << (i.contexts ? "yes" : "no") << "\nprotocol: " << i.protocol
                << "\n";
      return 0;
    }
    sandbox::RunOptions options;
    for (const auto& kv : env) {
      const auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) {
        std::cerr << "sandbox: --env expects NAME=VALUE, got '" << kv << "'\n";
        return kRequestFailed;
      }
      options.env_vars[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    if (!file.empty() && !code.empty()) {
      std::cerr << "sandbox: pass the code either as an argument or with --file, not both\n";
      return kRequestFailed;
    }
    if (!file.empty()) {
      std::ifstream in(file, std::ios::binary);
      if (!in) {
        std::cerr << "sandbox: cannot read " << file << "\n";
        return kRequestFailed;
      }
      code = read_all(in);
    } else if (code == "-") {
      code = read_all(std::cin);
    } else if (code.empty()) {
      std::cerr << "sandbox: no code given (pass CODE, --file PATH, or - for standard input)\n";
      return kRequestFailed;
    }
    const auto result = sandbox::run_code(url, code, options);
    print_result(result);
    return result.outcome.error ? kGuestError : 0;
  } catch (const sandbox::SandboxError& e) {
    return report_failure(e);
  }
}

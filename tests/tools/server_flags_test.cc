// The flags sandboxd and sandbox-runtime share (tools/common/server_flags.h), parsed by CLI11 in
// process: defaults, values, the refusals, and --version before anything required.
#include "server_flags.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <sandbox/version.h>

namespace sandbox::tools {
namespace {

// Parses `args` (without the program name), as main() does.
void parse(CLI::App& app, std::vector<std::string> args) {
  std::vector<const char*> argv = {"prog"};
  for (const auto& a : args) argv.push_back(a.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
}

TEST(ServerFlags, IsolationAndWorkersKeepTheirDefaultsAndTakeValues) {
  Isolation isolation = Isolation::kProcess;
  std::size_t workers = 0;
  {
    CLI::App app;
    add_isolation_flags(app, isolation, workers);
    parse(app, {});
    EXPECT_EQ(isolation, Isolation::kProcess);
    EXPECT_EQ(workers, 0u);
    EXPECT_NE(app.help().find("--isolation TEXT:{process,thread}=process"), std::string::npos)
        << app.help();
  }
  CLI::App app;
  add_isolation_flags(app, isolation, workers);
  parse(app, {"--isolation", "thread", "--workers", "3"});
  EXPECT_EQ(isolation, Isolation::kThread);
  EXPECT_EQ(workers, 3u);
}

TEST(ServerFlags, UnknownIsolationsAndTooManyWorkersAreRefused) {
  Isolation isolation = Isolation::kProcess;
  std::size_t workers = 0;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--isolation", "vm"},
        std::vector<std::string>{"--workers", std::to_string(kMaxWorkerProcesses + 1)},
        std::vector<std::string>{"--workers", "-1"}}) {
    CLI::App app;
    add_isolation_flags(app, isolation, workers);
    EXPECT_THROW(parse(app, args), CLI::ValidationError) << args[0] << " " << args[1];
  }
  EXPECT_EQ(isolation, Isolation::kProcess);
}

TEST(ServerFlags, StorageFlagsBindTheirVariables) {
  std::string database;
  std::string node;
  std::int64_t ttl = 30'000;
  CLI::App app;
  CLI::Option* lease = add_storage_flags(app, database, node, ttl, "sandbox");
  ASSERT_NE(lease, nullptr);
  EXPECT_EQ(lease->get_name(), "--lease-ttl-ms");
  EXPECT_NE(app.help().find("its lease on each sandbox it no longer serves"), std::string::npos);
  parse(app, {"--database", "postgresql://u@db/x", "--node-id", "n1", "--lease-ttl-ms", "2000"});
  EXPECT_EQ(database, "postgresql://u@db/x");
  EXPECT_EQ(node, "n1");
  EXPECT_EQ(ttl, 2000);
}

TEST(ServerFlags, VersionAnswersBeforeARequiredOption) {
  CLI::App app;
  add_version_flags(app, "sandbox-runtime");
  std::string engine;
  app.add_option("--engine", engine)->required();
  try {
    parse(app, {"--version"});
    FAIL() << "--version must end the parse";
  } catch (const CLI::CallForVersion& e) {
    EXPECT_EQ(std::string(e.what()), "sandbox-runtime " + std::string(kVersion));
  }
}

}  // namespace
}  // namespace sandbox::tools

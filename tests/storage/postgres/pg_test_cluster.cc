// pg_test_cluster start|stop FILE: the CTest fixture around the PostgreSQL tests
// (tests/storage/postgres/CMakeLists.txt). `start` starts a private cluster (pg_test_server.h)
// and writes its directory and admin connection string to FILE, one a line, for the test
// processes (SANDBOX_TEST_PG_CLUSTER_FILE); `stop` stops it and removes it and FILE. Without
// PostgreSQL binaries `start` says so and succeeds, and the tests skip.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "storage/postgres/pg_test_server.h"

using sandbox::testing_storage::find_postgres_bindir;
using sandbox::testing_storage::PgCluster;

namespace {

void stop_recorded(const std::string& file, const std::string& bindir) {
  std::ifstream in(file);
  std::string dir;
  if (std::getline(in, dir) && !dir.empty()) {
    PgCluster::stop(bindir, dir);
    std::cout << "pg_test_cluster: stopped " << dir << std::endl;
  }
  std::error_code ec;
  std::filesystem::remove(file, ec);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (std::string(argv[1]) != "start" && std::string(argv[1]) != "stop")) {
    std::cerr << "usage: pg_test_cluster start|stop FILE" << std::endl;
    return 2;
  }
  const std::string command = argv[1];
  const std::string file = argv[2];
  const auto bindir = find_postgres_bindir();
  if (!bindir) {
    std::cout << "pg_test_cluster: " << sandbox::testing_storage::kNoPostgresMessage
              << "; the PostgreSQL tests will skip" << std::endl;
    std::error_code ec;
    std::filesystem::remove(file, ec);
    return 0;
  }
  try {
    stop_recorded(file, *bindir);  // a cluster left by an interrupted run
    if (command == "stop") return 0;
    auto cluster = PgCluster::start(*bindir);
    cluster->detach();
    std::ofstream out(file);
    out << cluster->dir() << "\n" << cluster->admin_conninfo() << "\n";
    if (!out.flush()) throw std::runtime_error("cannot write " + file);
    std::cout << "pg_test_cluster: PostgreSQL running in " << cluster->dir() << std::endl;
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "pg_test_cluster: " << e.what() << std::endl;
    return 1;
  }
}

#include "storage/postgres/pg_test_server.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "storage/postgres/pg_handle.h"

namespace sandbox::testing_storage {
namespace {

namespace fs = std::filesystem;

bool executable(const fs::path& p) { return ::access(p.c_str(), X_OK) == 0; }

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `argv` (as the postgres user when we are root), output appended to `log`. Returns the
// exit status (-1 when it could not run).
int run(std::vector<std::string> argv, const std::string& log) {
  if (::geteuid() == 0) {
    std::string runuser = "/usr/sbin/runuser";
    if (!executable(runuser)) runuser = "/sbin/runuser";
    argv.insert(argv.begin(), {runuser, "-u", "postgres", "--"});
  }
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::closefrom(3);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string temp_base() {
  // As root the cluster runs as `postgres`, who must be able to reach the directory: /tmp, not
  // a TMPDIR that may sit under a private home.
  if (::geteuid() == 0) return "/tmp";
  const char* base = std::getenv("TMPDIR");
  return base && *base ? base : "/tmp";
}

// The admin connection string with another database name.
std::string with_dbname(const std::string& admin, const std::string& name) {
  if (admin.starts_with("postgresql://") || admin.starts_with("postgres://")) {
    const auto authority = admin.find("://") + 3;
    const auto query = admin.find('?', authority);
    const auto slash = admin.find('/', authority);
    const auto end_authority = std::min(slash, query);
    std::string out = admin.substr(0, end_authority) + "/" + name;
    if (query != std::string::npos) out += admin.substr(query);
    return out;
  }
  return admin + " dbname=" + name;  // a later keyword overrides an earlier one
}

}  // namespace

std::optional<std::string> find_postgres_bindir() {
  if (const char* env = std::getenv("PG_BINDIR"); env && *env) {
    if (executable(fs::path(env) / "initdb") && executable(fs::path(env) / "pg_ctl")) return env;
  }
  std::vector<std::pair<int, std::string>> versions;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const fs::path bin = entry.path() / "bin";
    if (!executable(bin / "initdb") || !executable(bin / "pg_ctl")) continue;
    versions.emplace_back(std::atoi(entry.path().filename().c_str()), bin.string());
  }
  if (!versions.empty()) return std::max_element(versions.begin(), versions.end())->second;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      if (!dir.empty() && executable(fs::path(dir) / "initdb") &&
          executable(fs::path(dir) / "pg_ctl")) {
        return dir;
      }
    }
  }
  return std::nullopt;
}

std::unique_ptr<PgCluster> PgCluster::start(const std::string& bindir) {
  std::string pattern = temp_base() + "/sbx-pg-XXXXXX";
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
  std::unique_ptr<PgCluster> cluster(new PgCluster(bindir, pattern));
  const std::string& dir = cluster->dir_;
  if (::geteuid() == 0) {
    const passwd* pw = ::getpwnam("postgres");
    if (!pw) {
      throw std::runtime_error(
          "running as root, but there is no `postgres` user to run the test server as "
          "(PostgreSQL refuses to run as root)");
    }
    if (::chown(dir.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
      throw std::runtime_error("cannot hand " + dir + " to the postgres user");
    }
  }
  const std::string log = dir + "/setup.log";
  if (run({bindir + "/initdb", "-D", dir + "/data", "-U", "postgres", "-A", "trust", "-E", "UTF8",
           "--locale=C", "--no-sync"},
          log) != 0) {
    throw std::runtime_error("initdb failed:\n" + read_file(log));
  }
  const std::string options = "-k " + dir +
                              " -c listen_addresses= -c fsync=off -c synchronous_commit=off"
                              " -c full_page_writes=off -c max_connections=300";
  if (run({bindir + "/pg_ctl", "-D", dir + "/data", "-l", dir + "/server.log", "-w", "-t", "60",
           "-o", options, "start"},
          log) != 0) {
    throw std::runtime_error("pg_ctl start failed:\n" + read_file(log) + "\nserver log:\n" +
                             read_file(dir + "/server.log"));
  }
  return cluster;
}

void PgCluster::stop(const std::string& bindir, const std::string& dir) {
  run({bindir + "/pg_ctl", "-D", dir + "/data", "-m", "fast", "-w", "-t", "60", "stop"},
      "/dev/null");
  std::error_code ec;
  fs::remove_all(dir, ec);
}

PgCluster::~PgCluster() {
  if (!detached_) stop(bindir_, dir_);
}

std::string PgCluster::admin_conninfo() const {
  return "host=" + dir_ + " port=5432 user=postgres dbname=postgres";
}

PgTestServer* PgTestServer::get() {
  static const std::unique_ptr<PgTestServer> server = []() -> std::unique_ptr<PgTestServer> {
    if (const char* url = std::getenv("SANDBOX_TEST_POSTGRES_URL"); url && *url) {
      return std::unique_ptr<PgTestServer>(new PgTestServer(url));
    }
    if (const char* file = std::getenv("SANDBOX_TEST_PG_CLUSTER_FILE"); file && *file) {
      std::ifstream in(file);
      std::string dir, conninfo;
      if (std::getline(in, dir) && std::getline(in, conninfo) && !conninfo.empty()) {
        return std::unique_ptr<PgTestServer>(new PgTestServer(conninfo));
      }
    }
    const auto bindir = find_postgres_bindir();
    if (!bindir) return nullptr;
    auto cluster = PgCluster::start(*bindir);
    std::unique_ptr<PgTestServer> s(new PgTestServer(cluster->admin_conninfo()));
    s->own_cluster_ = std::move(cluster);
    return s;
  }();
  return server.get();
}

std::unique_ptr<PgTestServer::Database> PgTestServer::create_database() {
  static std::atomic<int> counter{0};
  const std::string name =
      "sbx_test_" + std::to_string(::getpid()) + "_" + std::to_string(++counter);
  PgConnection admin(admin_);
  admin.exec("CREATE DATABASE " + name);  // our own [a-z0-9_] name: no quoting needed
  return std::make_unique<Database>(admin_, name, with_dbname(admin_, name));
}

PgTestServer::Database::~Database() {
  try {
    PgConnection admin(admin_);
    admin.exec("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
  } catch (const std::exception&) {
    // The server went away: nothing left to clean up.
  }
}

}  // namespace sandbox::testing_storage

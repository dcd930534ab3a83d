// Test helper for the abuse, load and crash suites: the real `sandboxd` executable as a child
// process in a scratch directory (its working directory, so that anything it writes outside its
// database shows up there), and a thin HTTP API over the project's client library that never
// throws: a transport failure is a Reply with `transport_error` set.
//
// The executable is $SANDBOXD_BIN when set (to run the suites against another build), else the
// sandboxd target of this build (SANDBOXD_PATH, passed by tests/abuse/CMakeLists.txt).
// ABUSE_VERBOSE=1 prints every request and answer on stderr.
//
// Thread-safety: a SandboxdServer is driven by one thread; SandboxdApi objects are per thread
// (each keeps one keep-alive connection); rss_bytes() may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/http_client.h"
#include "server/sandboxd_process.h"

namespace sandbox::test {

inline std::string sandboxd_binary() {
  if (const char* p = std::getenv("SANDBOXD_BIN"); p != nullptr && *p != '\0') return p;
  return SANDBOXD_PATH;
}

// An integer from the environment, or `fallback` when unset or not a number.
inline long env_long(const char* name, long fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return (end != nullptr && *end == '\0') ? n : fallback;
}

// A fresh directory under the system temp dir, removed with the object.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix = "sandboxd-abuse-") {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            (prefix + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

struct ServerOptions {
  std::vector<std::string> engines;  // empty: every engine the binary has
  std::string data_dir;              // required: --data
  std::string cwd;                   // the child's working directory (default: inherited)
  std::string log_path;              // stderr (the request log)
  std::string listen = "127.0.0.1:0";
  std::vector<std::string> extra_args;
};

class SandboxdServer {
 public:
  explicit SandboxdServer(ServerOptions options) : options_(std::move(options)) { start(); }

  // (Re)starts the process; started() says whether it printed its listening line.
  void start() {
    std::vector<std::string> argv = {sandboxd_binary(), "--data", options_.data_dir, "--listen",
                                     options_.listen};
    if (!options_.engines.empty()) {
      std::string list;
      for (const auto& e : options_.engines) list += (list.empty() ? "" : ",") + e;
      argv.emplace_back("--engines");
      argv.push_back(list);
    }
    // SANDBOXD_ISOLATION=thread|process: the suites run in both modes (tests/abuse/CMakeLists.txt).
    if (const char* mode = std::getenv("SANDBOXD_ISOLATION"); mode != nullptr && *mode != '\0') {
      argv.emplace_back("--isolation");
      argv.emplace_back(mode);
    }
    for (const auto& a : options_.extra_args) argv.push_back(a);
    child_.reset();
    child_ = std::make_unique<ChildProcess>(argv, std::vector<std::string>{}, options_.cwd,
                                            options_.log_path);
    port_ = child_->wait_for_line(std::regex(R"(listening on http://[^:]+:(\d+))"),
                                  std::chrono::seconds(120));
  }

  bool started() const { return !port_.empty(); }
  std::string url() const { return "http://127.0.0.1:" + port_; }
  pid_t pid() const { return child_ ? child_->pid() : -1; }
  // Whether the process is still running (it did not crash).
  // Read from /proc without reaping it, so that stop() still reports how it ended.
  bool alive() const {
    const pid_t p = pid();
    if (p <= 0) return false;
    std::ifstream in("/proc/" + std::to_string(p) + "/stat");
    std::string pid_field, comm, state;
    if (!(in >> pid_field >> comm >> state)) return false;
    return state != "Z" && state != "X";
  }
  // SIGKILL and reap.
  void kill_hard() {
    if (pid() > 0) ::kill(pid(), SIGKILL);
    if (child_) child_->wait_exit();
  }
  int stop() { return child_ ? child_->stop() : 0; }
  std::string log() const { return child_ ? child_->stderr_text() : ""; }

  // VmRSS of the process in bytes (0 when it cannot be read).
  std::uint64_t rss_bytes() const { return rss_of(pid()); }

  static std::uint64_t rss_of(pid_t pid) {
    if (pid <= 0) return 0;
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("VmRSS:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
    }
    return 0;
  }

 private:
  ServerOptions options_;
  std::unique_ptr<ChildProcess> child_;
  std::string port_;
};

// One HTTP answer. `json` is empty when the body is not a JSON object.
struct Reply {
  int status = 0;
  std::string body;
  boost::json::object json;
  bool transport_error = false;
  std::string transport_message;
  double ms = 0;

  bool ok() const { return !transport_error && status == 200; }

  // ExecutionResult accessors ("" when absent).
  std::string stdout_text() const { return joined_log("stdout"); }
  std::string stderr_text() const { return joined_log("stderr"); }
  bool has_error() const {
    const auto* e = json.if_contains("error");
    return e != nullptr && e->is_object();
  }
  std::string error_name() const { return error_field("name"); }
  std::string error_message() const { return error_field("message"); }
  std::string result_text() const {
    const auto* results = json.if_contains("results");
    if (results == nullptr || !results->is_array() || results->as_array().empty()) return "";
    const auto& entry = results->as_array()[0];
    if (!entry.is_object()) return "";
    if (const auto* t = entry.as_object().if_contains("text"); t != nullptr && t->is_string()) {
      return std::string(t->as_string());
    }
    if (const auto* j = entry.as_object().if_contains("json")) return boost::json::serialize(*j);
    return "";
  }
  std::string context_id() const {
    const auto* c = json.if_contains("context");
    if (c == nullptr || !c->is_object()) return "";
    const auto* id = c->as_object().if_contains("id");
    return id != nullptr && id->is_string() ? std::string(id->as_string()) : "";
  }
  // A one-line description for failure messages (the body is cut at 600 characters).
  std::string describe() const {
    if (transport_error) return "transport error: " + transport_message;
    return "HTTP " + std::to_string(status) + " " + body.substr(0, 600);
  }

 private:
  std::string joined_log(const char* stream) const {
    const auto* logs = json.if_contains("logs");
    if (logs == nullptr || !logs->is_object()) return "";
    const auto* lines = logs->as_object().if_contains(stream);
    if (lines == nullptr || !lines->is_array()) return "";
    std::string out;
    for (const auto& l : lines->as_array()) {
      if (l.is_string()) out += std::string(l.as_string()) + "\n";
    }
    return out;
  }
  std::string error_field(const char* field) const {
    const auto* e = json.if_contains("error");
    if (e == nullptr || !e->is_object()) return "";
    const auto* f = e->as_object().if_contains(field);
    return f != nullptr && f->is_string() ? std::string(f->as_string()) : "";
  }
};

class SandboxdApi {
 public:
  explicit SandboxdApi(const std::string& url,
                       std::chrono::milliseconds timeout = std::chrono::seconds(120))
      : url_(url), timeout_(timeout) {}

  Reply get(const std::string& path) { return send("GET", path, ""); }
  Reply del(const std::string& path) { return send("DELETE", path, ""); }
  Reply post(const std::string& path, const boost::json::object& body) {
    return send("POST", path, boost::json::serialize(body));
  }

  bool healthy() {
    const Reply r = get("/healthz");
    return r.ok() && r.body.find("\"ok\"") != std::string::npos;
  }
  // POST /execute/{language}: a stateless run.
  Reply run(const std::string& language, const std::string& code) {
    return post("/execute/" + language, {{"code", code}});
  }
  // POST /sandboxes/{id}/execute in the binding's default context.
  Reply execute(const std::string& sandbox, const std::string& binding, const std::string& code) {
    return post("/sandboxes/" + sandbox + "/execute", {{"code", code}, {"binding", binding}});
  }
  Reply execute_in(const std::string& sandbox, const std::string& context_id,
                   const std::string& code) {
    return post("/sandboxes/" + sandbox + "/execute", {{"code", code}, {"contextId", context_id}});
  }
  Reply create_context(const std::string& sandbox, const std::string& binding) {
    return post("/sandboxes/" + sandbox + "/contexts", {{"binding", binding}});
  }
  Reply write_file(const std::string& sandbox, const std::string& path,
                   const std::string& content) {
    return post("/sandboxes/" + sandbox + "/files",
                {{"op", "write"}, {"path", path}, {"content", content}});
  }
  Reply read_file(const std::string& sandbox, const std::string& path) {
    return post("/sandboxes/" + sandbox + "/files", {{"op", "read"}, {"path", path}});
  }
  Reply list_files(const std::string& sandbox, const std::string& path, bool recursive) {
    return post("/sandboxes/" + sandbox + "/files",
                {{"op", "list"}, {"path", path}, {"recursive", recursive}});
  }

 private:
  Reply send(const std::string& method, const std::string& path, const std::string& body) {
    Reply reply;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      if (!client_) client_ = std::make_unique<HttpClient>(url_, timeout_);
      const HttpResponse r =
          method == "POST" ? client_->post_json(path, body) : client_->request(method, path, body);
      reply.status = r.status;
      reply.body = r.body;
      boost::system::error_code ec;
      auto v = boost::json::parse(reply.body, ec);
      if (!ec && v.is_object()) reply.json = std::move(v.as_object());
    } catch (const std::exception& e) {
      reply.transport_error = true;
      reply.transport_message = e.what();
      client_.reset();  // a broken connection is not reused
    }
    reply.ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (verbose_) {
      boost::json::object shown = reply.json;
      shown.erase("code");  // the request already shows it
      std::fprintf(stderr, "--> %s %s %s\n<-- %d (%.0f ms) %s\n", method.c_str(), path.c_str(),
                   body.substr(0, 2000).c_str(), reply.status, reply.ms,
                   reply.transport_error ? reply.transport_message.c_str()
                                         : boost::json::serialize(shown).substr(0, 4000).c_str());
    }
    return reply;
  }

  std::string url_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<HttpClient> client_;
  // ABUSE_VERBOSE=1 prints every request and answer (to see what the guest programs did).
  bool verbose_ = env_long("ABUSE_VERBOSE", 0) != 0;
};

}  // namespace sandbox::test

// The abuse suites' fixture: one real sandboxd per test, serving the test's language, started in a
// scratch "host" directory that also holds a canary file. After every test it proves the server
// survived the abuse and kept the host intact:
//   - the process is alive and GET /healthz answers ok;
//   - a fresh sandbox (and a stateless run) still computes 1 + 1 in the language;
//   - the canary's bytes are unchanged and no file appeared in the host directory except the
//     database (sandboxd.db and its -wal/-shm/-journal), nor the /tmp names guests try to create.
// Guest programs see the canary through placeholders (fill()): {CANARY} is its absolute host
// path, {HOSTDIR} the host directory, {TOKEN} a per-test random word.
#pragma once

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "abuse/sandboxd_server.h"

namespace sandbox::test {

// The languages this build's sandboxd has (SANDBOXD_BUILT_ENGINES, from CMake), in a fixed
// order: the sanitizer builds have only Lua.
inline const std::vector<std::string>& abuse_languages() {
  static const std::vector<std::string> kLanguages = [] {
    const std::string built = "," SANDBOXD_BUILT_ENGINES ",";
    std::vector<std::string> out;
    for (const char* language : {"python", "javascript", "lua", "ruby", "perl"}) {
      if (built.find("," + std::string(language) + ",") != std::string::npos) {
        out.emplace_back(language);
      }
    }
    return out;
  }();
  return kLanguages;
}

inline std::string upper_case(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

inline std::string read_host_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Replaces every `from` in `s` by `to`.
inline std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

// A list of strings as a literal of `language` (the strings hold no quote or backslash).
inline std::string list_literal(const std::string& language,
                                const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + ("'" + i + "'");
  if (language == "lua") return "{" + out + "}";
  if (language == "perl") return "(" + out + ")";
  return "[" + out + "]";
}

class AbuseTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::string language() const { return GetParam(); }
  std::string binding() const { return upper_case(GetParam()); }

  void SetUp() override {
    std::random_device rd;
    token_ = "tok" + std::to_string(rd()) + std::to_string(rd());
    canary_ = host_.path() / "canary.txt";
    canary_text_ = "CANARY-" + token_ + "\n";
    std::ofstream(canary_, std::ios::binary) << canary_text_;
    server_ = std::make_unique<SandboxdServer>(
        ServerOptions{.engines = {language()},
                      .data_dir = host_.file("data"),
                      .cwd = host_.path().string(),
                      .log_path = logs_.file("sandboxd.stderr.log")});
    ASSERT_TRUE(server_->started()) << server_->log();
    api_ = std::make_unique<SandboxdApi>(server_->url(), std::chrono::seconds(90));
  }

  void TearDown() override {
    if (server_ == nullptr || !server_->started()) return;
    expect_server_intact();
    expect_host_intact();
  }

  // The server survived: alive, healthy, and a new sandbox and a stateless run compute 1 + 1.
  void expect_server_intact() {
    ASSERT_TRUE(server_->alive()) << "sandboxd died; log:\n" << server_->log();
    SandboxdApi fresh(server_->url(), std::chrono::seconds(60));
    EXPECT_TRUE(fresh.healthy());
    const Reply stateless = fresh.run(language(), "1 + 1");
    EXPECT_EQ(stateless.status, 200) << stateless.describe();
    EXPECT_FALSE(stateless.has_error()) << stateless.describe();
    EXPECT_EQ(stateless.result_text(), "2") << stateless.describe();
    const Reply context = fresh.execute("after-" + token_, binding(), "1 + 1");
    EXPECT_EQ(context.status, 200) << context.describe();
    EXPECT_FALSE(context.has_error()) << context.describe();
    EXPECT_EQ(context.result_text(), "2") << context.describe();
  }

  // Nothing outside the workspace was written on the host.
  void expect_host_intact() {
    EXPECT_EQ(read_host_file(canary_), canary_text_) << "the canary was altered";
    static const std::set<std::string> kAllowed = {
        "canary.txt",           "data",
        "data/sandboxd.db",     "data/sandboxd.db-wal",
        "data/sandboxd.db-shm", "data/sandboxd.db-journal"};
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(host_.path(), ec);
         it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      const std::string rel = std::filesystem::relative(it->path(), host_.path()).string();
      EXPECT_TRUE(kAllowed.count(rel)) << "unexpected file in sandboxd's directory: " << rel;
    }
    for (const auto& name : guest_tmp_names()) {
      EXPECT_FALSE(std::filesystem::exists(name, ec)) << "a guest created " << name;
    }
  }

  // Host paths guests are invited to create (absolute and via ../ from /workspace).
  std::vector<std::string> guest_tmp_names() const {
    return {"/tmp/escaped-" + token_ + ".txt", "/tmp/escaped-dir-" + token_,
            "/escaped-" + token_ + ".txt"};
  }

  std::string fill(std::string code) const {
    code = replace_all(std::move(code), "{CANARY}", canary_.string());
    code = replace_all(std::move(code), "{HOSTDIR}", host_.path().string());
    code = replace_all(std::move(code), "{TOKEN}", token_);
    return code;
  }

  // The program of `programs` for this test's language, or "" (the test is then skipped).
  std::string program(const std::map<std::string, std::string>& programs) const {
    const auto it = programs.find(language());
    return it == programs.end() ? "" : fill(it->second);
  }

  // A guest failure reported as a value: HTTP 200 with an ExecutionResult error.
  static void expect_guest_error(const Reply& r) {
    EXPECT_EQ(r.status, 200) << r.describe();
    EXPECT_TRUE(r.has_error()) << "expected a guest error or a limit: " << r.describe();
  }

  // The response leaked nothing of the host.
  void expect_no_host_data(const Reply& r) const {
    EXPECT_EQ(r.body.find("CANARY-" + token_), std::string::npos) << "the canary leaked";
    EXPECT_EQ(r.body.find("root:x:0:0"), std::string::npos) << "/etc/passwd leaked";
  }

  ScratchDir host_{"sandboxd-abuse-host-"};
  ScratchDir logs_{"sandboxd-abuse-log-"};
  std::string token_;
  std::filesystem::path canary_;
  std::string canary_text_;
  std::unique_ptr<SandboxdServer> server_;
  std::unique_ptr<SandboxdApi> api_;
};

// gtest parameter names: the language.
inline std::string language_name(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

}  // namespace sandbox::test

// The engine manifest (engines/engines.cmake) drives the registry, the build, GET /languages, the
// install and `sandbox init`: the registry lists exactly the manifest engines whose library target
// this build defines, in the manifest's order, each entry making the engine of its language and
// saying whether it is served by default (all but the TEST engines); the real sandboxd serves the
// default ones as GET /languages and a TEST one only when --engines names it; the install holds
// the built engines but the TEST ones; and `sandbox init` offers the manifest engines but the
// TEST ones.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include "client/http_client.h"
#include "registry.h"
#include "scaffold/scaffold.h"
#include "server/sandboxd_process.h"

namespace sandbox::test {
namespace {

namespace fs = std::filesystem;

// The install copies every engine library (over a hundred MB with the big engines).
constexpr std::chrono::seconds kInstallTimeout{120};

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::vector<std::string> sorted(std::vector<std::string> list) {
  std::sort(list.begin(), list.end());
  return list;
}

std::vector<std::string> built_engines() { return split_commas(SANDBOX_TEST_BUILT_ENGINE_TARGETS); }

std::vector<std::string> test_engines() { return split_commas(SANDBOX_TEST_TEST_ENGINES); }

std::vector<std::string> registry_names() {
  std::vector<std::string> names;
  for (const auto& e : engines::builtin_engines()) names.push_back(e.name);
  return names;
}

// The built engines but the TEST ones, in the manifest's order.
std::vector<std::string> expected_default_engines() {
  std::vector<std::string> out;
  for (const auto& id : built_engines()) {
    if (!contains(test_engines(), id)) out.push_back(id);
  }
  return out;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// A fresh directory, removed with the object.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = fs::temp_directory_path() /
            ("engine-manifest-" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The ids of GET /languages of a sandboxd started with `args`, each checked to be a built-in
// engine under its upper-case binding, available.
std::vector<std::string> served_languages(const std::vector<std::string>& args) {
  TempDir dir;
  SandboxdProcess d((dir.path() / "data").string(), args);
  EXPECT_TRUE(d.started()) << d.process().stderr_text();
  if (!d.started()) return {};
  HttpClient client(d.url());
  const HttpResponse r = client.request("GET", "/languages", "", {});
  EXPECT_EQ(r.status, 200) << r.body;
  std::vector<std::string> ids;
  const boost::json::value body = boost::json::parse(r.body);
  for (const auto& l : body.at("languages").as_array()) {
    const auto& o = l.as_object();
    const std::string id(o.at("id").as_string());
    ids.push_back(id);
    EXPECT_EQ(o.at("binding").as_string(), upper(id));
    EXPECT_EQ(o.at("language").as_string(), id);
    EXPECT_EQ(o.at("remote").as_bool(), false) << id;
    EXPECT_EQ(o.at("available").as_bool(), true) << id;
  }
  return ids;
}

TEST(EngineManifest, RegistryListsTheBuiltEnginesInManifestOrder) {
  const std::vector<std::string> built = built_engines();
  EXPECT_EQ(registry_names(), built);
  // calc is built in every configuration, and this build has the tests, hence their kv engine.
  EXPECT_TRUE(contains(built, "calc"));
  EXPECT_TRUE(contains(built, "kv"));
  EXPECT_TRUE(contains(test_engines(), "kv"));
  for (const auto& id : test_engines()) EXPECT_TRUE(contains(built, id)) << id;
}

TEST(EngineManifest, EnginesNotBuiltAreNotFound) {
  const std::vector<std::string> built = built_engines();
  for (const auto& id : split_commas(SANDBOX_TEST_MANIFEST_ENGINES)) {
    const bool is_built = contains(built, id);
    EXPECT_EQ(engines::find_engine(id) != nullptr, is_built) << id;
    if (is_built) {
      EXPECT_EQ(engines::find_engine(upper(id)), engines::find_engine(id)) << id;
    }
  }
  EXPECT_EQ(engines::find_engine("cobol"), nullptr);
}

TEST(EngineManifest, EachEntryMakesTheEngineOfItsLanguage) {
  for (const auto& entry : engines::builtin_engines()) {
    const Engine engine = entry.make();
    EXPECT_EQ(engine.language, entry.name);
    EXPECT_FALSE(engine.engine_name.empty()) << entry.name;
    EXPECT_GT(engine.limits.code_bytes, 0u) << entry.name;
  }
}

TEST(EngineManifest, TheTestEnginesAreNotServedByDefault) {
  for (const auto& entry : engines::builtin_engines()) {
    EXPECT_EQ(entry.served_by_default, !contains(test_engines(), entry.name)) << entry.name;
  }
  std::vector<std::string> defaults;
  for (const auto* entry : engines::default_engines()) defaults.push_back(entry->name);
  EXPECT_EQ(defaults, expected_default_engines());
  EXPECT_FALSE(contains(defaults, "kv"));
  EXPECT_TRUE(contains(defaults, "calc"));

  std::string names;
  for (const auto& id : expected_default_engines()) names += (names.empty() ? "" : ", ") + id;
  EXPECT_EQ(engines::default_engine_names(), names);
  // Named, a test engine is still found: `sandboxd --engines kv` and the tests rely on it.
  ASSERT_NE(engines::find_engine("kv"), nullptr);
  EXPECT_FALSE(engines::find_engine("kv")->served_by_default);
}

TEST(EngineManifest, GetLanguagesServesTheDefaultEngines) {
  const std::vector<std::string> ids = served_languages({});
  EXPECT_EQ(sorted(ids), sorted(expected_default_engines()));
  for (const auto& id : test_engines()) EXPECT_FALSE(contains(ids, id)) << id;
}

TEST(EngineManifest, ATestEngineIsServedWhenNamed) {
  for (const auto& id : test_engines()) {
    EXPECT_EQ(served_languages({"--engines", id}), std::vector<std::string>{id});
    EXPECT_EQ(sorted(served_languages({"--engines", "calc," + upper(id)})),
              sorted(std::vector<std::string>{"calc", id}));
  }
}

TEST(EngineManifest, HelpListsTheBuiltAndTheDefaultEngines) {
  TempDir dir;
  ChildProcess help({SANDBOXD_PATH, "--help"}, {}, {}, (dir.path() / "stderr").string());
  // --help prints everything, then exits: read stdout up to the last option.
  const std::string line = help.wait_for_line(std::regex("--engines"));
  EXPECT_EQ(help.wait_exit(), 0);
  std::string built;
  for (const auto& id : built_engines()) built += (built.empty() ? "" : ", ") + id;
  EXPECT_NE(line.find("built: " + built + ";"), std::string::npos) << line;
  EXPECT_NE(line.find("default: " + engines::default_engine_names() + ")"), std::string::npos)
      << line;
}

// The install's `engines` component holds each built engine's header and library but those of
// the TEST engines, its export set names no TEST engine, and every header an installed engine
// header includes with "..." is installed beside it (the manifest's INCLUDES).
TEST(EngineManifest, TheInstallHoldsTheShippedEnginesOnly) {
#ifndef SANDBOX_TEST_CMAKE
  GTEST_SKIP() << "this build generates no install rules (SANDBOX_INSTALL=OFF)";
#else
  TempDir prefix;
  const fs::path log = prefix.path() / "install.log";
  ChildProcess install({SANDBOX_TEST_CMAKE, "--install", SANDBOX_TEST_BUILD_DIR, "--component",
                        "engines", "--prefix", (prefix.path() / "kit").string()},
                       {}, {}, log.string());
  // Reads its stdout (a line per file) until it exits, so that a full pipe never blocks it.
  while (!install.wait_for_line(std::regex("."), kInstallTimeout).empty()) {
  }
  ASSERT_EQ(install.wait_exit(), 0) << install.stdout_text() << install.stderr_text();

  std::vector<std::string> installed;
  std::string exports;
  for (const auto& f : fs::recursive_directory_iterator(prefix.path() / "kit")) {
    if (!f.is_regular_file()) continue;
    installed.push_back(f.path().filename().string());
    if (f.path().extension() == ".cmake") {
      std::ifstream in(f.path());
      exports.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
  }
  ASSERT_FALSE(exports.empty()) << "no export set installed";
  for (const auto& spec : split_commas(SANDBOX_TEST_ENGINE_FILES)) {
    const std::string id = spec.substr(0, spec.find('='));
    if (!contains(built_engines(), id)) continue;
    const std::string header = spec.substr(id.size() + 1, spec.find('|') - id.size() - 1);
    const std::string library = spec.substr(spec.find('|') + 1);
    const bool shipped = !contains(test_engines(), id);
    EXPECT_EQ(contains(installed, header), shipped) << id << ": " << header;
    EXPECT_EQ(contains(installed, library), shipped) << id << ": " << library;
    EXPECT_EQ(exports.find("add_library(sandbox::engine_" + id + " ") != std::string::npos, shipped)
        << id;
  }

  const fs::path engine_headers = prefix.path() / "kit" / "include" / "sandbox" / "engines";
  const std::regex local_include(R"re(^\s*#\s*include\s*"([^"]+)")re");
  for (const auto& f : fs::directory_iterator(engine_headers)) {
    std::ifstream in(f.path());
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (std::regex_search(line, m, local_include)) {
        EXPECT_TRUE(fs::exists(engine_headers / m[1].str()))
            << f.path().filename() << " includes " << m[1] << ", which is not installed";
      }
    }
  }
#endif
}

// `sandbox init LANGUAGE` builds against the installed sandbox::engine_LANGUAGE, so it offers
// the manifest's engines but the TEST ones (whatever this build has: a kit may have others).
TEST(EngineManifest, SandboxInitOffersTheShippedEngines) {
  std::vector<std::string> shipped;
  for (const auto& id : split_commas(SANDBOX_TEST_MANIFEST_ENGINES)) {
    if (!contains(test_engines(), id)) shipped.push_back(id);
  }
  EXPECT_EQ(sorted(scaffold::builtin_languages()), sorted(shipped));
}

}  // namespace
}  // namespace sandbox::test

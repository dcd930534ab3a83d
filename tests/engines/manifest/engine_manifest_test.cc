// The engine manifest (engines/engines.cmake) drives the registry, the build and GET /languages:
// the registry lists exactly the manifest engines whose library target this build defines, in
// the manifest's order; each entry makes the engine of its language; and the real sandboxd
// serves the same list as GET /languages.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include "client/http_client.h"
#include "registry.h"
#include "server/sandboxd_process.h"

namespace sandbox::test {
namespace {

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

std::vector<std::string> registry_names() {
  std::vector<std::string> names;
  for (const auto& e : engines::builtin_engines()) names.push_back(e.name);
  return names;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

TEST(EngineManifest, RegistryListsTheBuiltEnginesInManifestOrder) {
  const std::vector<std::string> built = split_commas(SANDBOX_TEST_BUILT_ENGINE_TARGETS);
  EXPECT_EQ(registry_names(), built);
  // Always built: the engines the tests themselves use.
  EXPECT_NE(std::find(built.begin(), built.end(), "calc"), built.end());
  EXPECT_NE(std::find(built.begin(), built.end(), "kv"), built.end());
}

TEST(EngineManifest, EnginesNotBuiltAreNotFound) {
  const std::vector<std::string> built = split_commas(SANDBOX_TEST_BUILT_ENGINE_TARGETS);
  for (const auto& id : split_commas(SANDBOX_TEST_MANIFEST_ENGINES)) {
    const bool is_built = std::find(built.begin(), built.end(), id) != built.end();
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

TEST(EngineManifest, GetLanguagesServesTheRegistry) {
  std::random_device rd;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("engine-manifest-" + std::to_string(rd()) + std::to_string(rd()));
  std::filesystem::create_directories(dir);
  {
    SandboxdProcess d((dir / "data").string(), {});
    ASSERT_TRUE(d.started()) << d.process().stderr_text();
    HttpClient client(d.url());
    const HttpResponse r = client.request("GET", "/languages", "", {});
    ASSERT_EQ(r.status, 200) << r.body;
    std::vector<std::string> ids;
    const boost::json::value body = boost::json::parse(r.body);
    for (const auto& l : body.at("languages").as_array()) {
      const auto& o = l.as_object();
      const std::string id(o.at("id").as_string());
      ids.push_back(id);
      EXPECT_EQ(o.at("binding").as_string(), upper(id));
      EXPECT_EQ(o.at("language").as_string(), id);
      EXPECT_EQ(o.at("available").as_bool(), true) << id;
    }
    std::vector<std::string> expected = registry_names();
    std::sort(ids.begin(), ids.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(ids, expected);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace
}  // namespace sandbox::test

// The project generator of `sandbox init` (src/scaffold): names, the three kinds of project,
// the Wasm module check, writing without overwriting, the kit prefix, the embedded templates.
// The generated projects are built and run against an installed kit by the flow tests
// (run_guide.py); these tests pin what is generated.
#include "scaffold/scaffold.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "scaffold/templates.h"
#include "scaffold/wasm_exports.h"

namespace sandbox::scaffold {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const ProjectFile* find(const Project& p, const std::string& path) {
  for (const auto& f : p.files) {
    if (f.path == path) return &f;
  }
  return nullptr;
}

const std::string& content(const Project& p, const std::string& path) {
  const ProjectFile* f = find(p, path);
  if (!f) throw std::runtime_error("no " + path + " in the project");
  return f->content;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/scaffold-test-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

const KitInfo kKit{.version = "0.1.0", .protocol = 1, .prefix = "/opt/sandbox kit"};

void expect_no_placeholders(const Project& p) {
  for (const auto& f : p.files) {
    if (f.path.ends_with(".wasm")) continue;
    const auto open = f.content.find("{{");
    if (open == std::string::npos) continue;
    // C++ braces are fine ("{{0}, {0}}"); a placeholder is {{identifier}}.
    const auto close = f.content.find("}}", open);
    const std::string inner = f.content.substr(open + 2, close - open - 2);
    EXPECT_FALSE(
        !inner.empty() &&
        std::all_of(inner.begin(), inner.end(),
                    [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }))
        << f.path << " keeps the placeholder {{" << inner << "}}";
  }
}

boost::json::object conformance(const Project& p) {
  return boost::json::parse(content(p, "conformance.json")).as_object();
}

TEST(ProjectName, AcceptsLowercaseIdentifiers) {
  for (const char* name : {"calc2", "a", "my_lang", "x1_2", "abcdefghijklmnopqrstuvwxyz012345"}) {
    EXPECT_NO_THROW(check_project_name(name)) << name;
  }
}

TEST(ProjectName, RefusesWhatCannotNameANamespaceOrTarget) {
  for (const char* name :
       {"", "Calc", "2calc", "_calc", "my-lang", "my lang", "calc.2", "new", "int", "std",
        "sandbox", "test", "all", "main", "abcdefghijklmnopqrstuvwxyz0123456"}) {
    EXPECT_THROW(check_project_name(name), ScaffoldError) << "'" << name << "'";
  }
}

TEST(CustomProject, StatelessHasTheSkeletonTheServerAndAConformanceTest) {
  const Project p = custom_project("calc2", std::nullopt, kKit);
  EXPECT_EQ(p.name, "calc2");
  std::vector<std::string> paths;
  for (const auto& f : p.files) paths.push_back(f.path);
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(paths, (std::vector<std::string>{".gitignore", "CMakeLists.txt", "README.md",
                                             "conformance.json", "src/engine.cc", "src/engine.h",
                                             "src/main.cc", "tests/conformance_test.cc"}));
  const std::string& cmake = content(p, "CMakeLists.txt");
  EXPECT_TRUE(contains(cmake, "find_package(sandbox 0.1 CONFIG REQUIRED)"));
  EXPECT_TRUE(contains(cmake, "target_link_libraries(calc2_engine PUBLIC sandbox::interpreter)"));
  EXPECT_TRUE(contains(cmake, "add_test(NAME calc2_conformance"));
  EXPECT_FALSE(contains(cmake, "sandbox_add_wasm_module"));
  const std::string& engine = content(p, "src/engine.cc");
  EXPECT_TRUE(contains(engine, "namespace calc2 {"));
  EXPECT_TRUE(contains(engine, ".language = \"calc2\""));
  EXPECT_TRUE(contains(engine, ".sessions = std::nullopt"));
  EXPECT_TRUE(contains(content(p, "src/main.cc"), "calc2::make_engine()"));
  EXPECT_TRUE(contains(content(p, "src/main.cc"), "(wire protocol\n// 1)"));
  const auto programs = conformance(p);
  EXPECT_EQ(programs.at("simple").at("code"), "1 + 1");
  EXPECT_EQ(programs.at("simple").at("expectResultText"), "2");
  EXPECT_EQ(programs.at("error").at("code"), "1 / 0");
  EXPECT_TRUE(programs.at("stateful").is_null());
  const std::string& readme = content(p, "README.md");
  EXPECT_TRUE(contains(readme, "-DCMAKE_PREFIX_PATH='/opt/sandbox kit'"));
  EXPECT_TRUE(contains(readme, "build/calc2 --listen 127.0.0.1:8080"));
  EXPECT_TRUE(contains(readme, "--binding CALC2=http://127.0.0.1:8080"));
  EXPECT_TRUE(contains(readme, "sandbox run --sandbox demo --binding CALC2 '6 * 7'"));
  expect_no_placeholders(p);
  ASSERT_EQ(p.commands.size(), 2u);
  EXPECT_EQ(p.commands[1], "build/calc2 --listen 127.0.0.1:8080");
}

TEST(CustomProject, TheKitPrefixDecidesTheCMakePrefixPath) {
  const auto readme = [](std::string prefix) {
    return content(custom_project("calc2", std::nullopt, {"0.1.0", 1, std::move(prefix)}),
                   "README.md");
  };
  EXPECT_TRUE(contains(readme(""), "-DCMAKE_PREFIX_PATH=/path/to/the/kit"));
  EXPECT_FALSE(contains(readme("/usr"), "CMAKE_PREFIX_PATH"));
  EXPECT_TRUE(contains(readme("/home/o'neil/kit"), "-DCMAKE_PREFIX_PATH='/home/o'\\''neil/kit'"));
}

TEST(CustomProject, WasmWrapsTheModuleInTheEmbeddedHost) {
  const fs::path wasm = SANDBOX_TEST_ABI_GUEST;
  const Project p = custom_project("kv2", wasm, kKit);
  EXPECT_EQ(content(p, "wasm/kv2.wasm"), read(wasm));
  const std::string& cmake = content(p, "CMakeLists.txt");
  EXPECT_TRUE(contains(cmake, "project(kv2 VERSION 0.1 LANGUAGES C CXX ASM)"));
  EXPECT_TRUE(contains(cmake, "sandbox_add_wasm_module(kv2_guest WASM wasm/kv2.wasm FUEL ON"));
  EXPECT_TRUE(contains(cmake, "kv2_guest sandbox::embedded"));
  const std::string& engine = content(p, "src/engine.cc");
  EXPECT_TRUE(contains(engine, "#include \"kv2_guest.h\""));
  EXPECT_TRUE(contains(engine, "sandbox::make_embedded_engine("));
  EXPECT_TRUE(contains(engine, "*sandbox_wasm_module_kv2_guest()"));
  // The generator cannot know the guest's language: the author writes the programs.
  const auto programs = conformance(p);
  EXPECT_EQ(programs.at("simple").at("code"), "");
  EXPECT_TRUE(programs.at("stateful").is_object());
  EXPECT_TRUE(contains(p.description, "conformance.json"));
  EXPECT_EQ(p.commands[1], "build/kv2 --listen 127.0.0.1:8080 --data data");
  expect_no_placeholders(p);
}

TEST(CustomProject, WasmifyWrapsTheModuleInTheWasmifyDriver) {
  const fs::path wasm = SANDBOX_TEST_WASMIFY_GUEST;
  const Project p = custom_project("wkv2", wasm, kKit, ModuleAbi::kWasmify);
  EXPECT_EQ(content(p, "wasm/wkv2.wasm"), read(wasm));
  const std::string& cmake = content(p, "CMakeLists.txt");
  EXPECT_TRUE(contains(cmake, "sandbox_add_wasm_module(wkv2_guest WASM wasm/wkv2.wasm FUEL ON"));
  EXPECT_TRUE(contains(cmake, "`sandbox init --custom wkv2 --wasmify ...`"));
  EXPECT_TRUE(contains(cmake, "the kit's wasmify driver around the guest"));
  const std::string& engine = content(p, "src/engine.cc");
  EXPECT_TRUE(contains(engine, "#include <sandbox/wasmify.h>"));
  EXPECT_TRUE(contains(engine, "sandbox::make_wasmify_engine("));
  EXPECT_TRUE(contains(engine, "*sandbox_wasm_module_wkv2_guest()"));
  EXPECT_TRUE(contains(engine, "make_driver()"));
  // The driver is a file of its own, the author's part, built into the engine's library.
  EXPECT_TRUE(contains(cmake, "add_library(wkv2_engine STATIC src/engine.cc src/driver.cc)"));
  EXPECT_TRUE(contains(content(p, "src/driver.h"), "sandbox::WasmifyDriver make_driver();"));
  const std::string& driver = content(p, "src/driver.cc");
  // The module's API functions are listed for the author, in the order of their ids; the ids
  // themselves are left to fill in.
  EXPECT_TRUE(contains(driver, "The module's API functions: w_0_0, w_0_1, w_0_2, w_0_3."));
  EXPECT_TRUE(contains(driver, ".init_method = \"\","));
  EXPECT_TRUE(contains(content(p, "README.md"), "w_0_0, w_0_1, w_0_2, w_0_3"));
  EXPECT_TRUE(contains(p.description, "complete its driver"));
  EXPECT_TRUE(conformance(p).at("stateful").is_object());
  expect_no_placeholders(p);
  // The embedded project's files name their own ABI.
  const Project embedded = custom_project("kv2", fs::path(SANDBOX_TEST_ABI_GUEST), kKit);
  EXPECT_TRUE(contains(content(embedded, "CMakeLists.txt"), "--custom kv2 --wasm ...`"));
  EXPECT_TRUE(contains(content(embedded, "CMakeLists.txt"),
                       "add_library(kv2_engine STATIC src/engine.cc)"));
  EXPECT_EQ(find(embedded, "src/driver.cc"), nullptr);
}

TEST(CustomProject, EachAbiRefusesTheOthersModule) {
  try {
    custom_project("x", fs::path(SANDBOX_TEST_ABI_GUEST), kKit, ModuleAbi::kWasmify);
    FAIL() << "an embedded-ABI module is not a wasmify one";
  } catch (const ScaffoldError& e) {
    EXPECT_TRUE(contains(e.what(),
                         "does not implement the wasmify ABI (missing exports: wasm_init, "
                         "wasm_alloc, wasm_free, w_0_<N>)"))
        << e.what();
  }
  EXPECT_THROW(custom_project("x", fs::path(SANDBOX_TEST_WASMIFY_GUEST), kKit), ScaffoldError);
}

TEST(CustomProject, RefusesAModuleWithoutTheEmbeddedAbi) {
  try {
    custom_project("lim", fs::path(SANDBOX_TEST_NON_ABI_GUEST), kKit);
    FAIL() << "a module without the ABI's exports must be refused";
  } catch (const ScaffoldError& e) {
    EXPECT_TRUE(contains(e.what(), "missing exports: alloc, dealloc, session_init, eval"))
        << e.what();
  }
}

TEST(CustomProject, RefusesAMissingFileAndBytesThatAreNotWasm) {
  TempDir dir;
  EXPECT_THROW(custom_project("x", dir.path() / "missing.wasm", kKit), ScaffoldError);
  std::ofstream(dir.path() / "text.wasm") << "not wasm at all";
  try {
    custom_project("x", dir.path() / "text.wasm", kKit);
    FAIL();
  } catch (const ScaffoldError& e) {
    EXPECT_TRUE(contains(e.what(), "not a Wasm binary")) << e.what();
  }
  EXPECT_THROW(custom_project("Bad-Name", std::nullopt, kKit), ScaffoldError);
}

std::string u32(std::uint32_t n) {  // LEB128
  std::string out;
  do {
    std::uint8_t b = n & 0x7f;
    n >>= 7;
    out.push_back(static_cast<char>(n ? b | 0x80 : b));
  } while (n);
  return out;
}

std::string export_section(const std::vector<std::pair<std::string, char>>& exports) {
  std::string body = u32(static_cast<std::uint32_t>(exports.size()));
  for (const auto& [name, kind] : exports) body += u32(name.size()) + name + kind + u32(0);
  return std::string(1, '\x07') + u32(body.size()) + body;
}

const std::string kHeader("\0asm\1\0\0\0", 8);

TEST(WasmExports, ReadsFunctionExportsAndSkipsOtherSections) {
  const std::string custom_section = std::string("\0\3\1x\1", 5);  // id 0, 3 bytes
  const std::string bytes = kHeader + custom_section +
                            export_section({{"eval", '\0'}, {"memory", '\2'}, {"alloc", '\0'}});
  EXPECT_EQ(wasm_function_exports(bytes), (std::vector<std::string>{"eval", "alloc"}));
  EXPECT_EQ(missing_embedded_exports({"eval", "alloc"}),
            (std::vector<std::string>{"dealloc", "session_init", "result_ptr", "result_len"}));
  EXPECT_TRUE(missing_embedded_exports(
                  {"alloc", "dealloc", "session_init", "eval", "result_ptr", "result_len"})
                  .empty());
}

TEST(WasmExports, WasmifyMethodsAreOrderedByTheirNumber) {
  const std::vector<std::string> exports = {"wasm_free", "w_0_10", "w_0_2", "w_0_x",
                                            "w_1_0",     "w_0_",   "w_0_0", "wasm_init"};
  EXPECT_EQ(wasmify_methods(exports), (std::vector<std::string>{"w_0_0", "w_0_2", "w_0_10"}));
  EXPECT_EQ(missing_wasmify_exports(exports), std::vector<std::string>{"wasm_alloc"});
  EXPECT_EQ(missing_wasmify_exports({"wasm_init", "wasm_alloc", "wasm_free"}),
            std::vector<std::string>{"w_0_<N>"});
}

TEST(WasmExports, RefusesMalformedBinaries) {
  const std::string good = kHeader + export_section({{"eval", '\0'}});
  EXPECT_NO_THROW(wasm_function_exports(good));
  EXPECT_THROW(wasm_function_exports(""), ScaffoldError);
  EXPECT_THROW(wasm_function_exports(std::string("\0asm\2\0\0\0", 8)), ScaffoldError);
  for (std::size_t n = 9; n < good.size(); ++n) {  // every truncation
    EXPECT_THROW(wasm_function_exports(good.substr(0, n)), ScaffoldError) << n;
  }
  EXPECT_THROW(wasm_function_exports(kHeader + "\x07\xff\xff\xff\xff\x7f"), ScaffoldError);
  EXPECT_THROW(wasm_function_exports(kHeader + "\x07\x03\x01\x09" + "e"), ScaffoldError);
}

TEST(LanguageProject, EveryBuiltinLanguageGetsItsEngineAndPrograms) {
  ASSERT_EQ(builtin_languages(),
            (std::vector<std::string>{"calc", "javascript", "python", "lua", "ruby", "perl"}));
  for (const auto& language : builtin_languages()) {
    const Project p = language_project(language, "runtimes/my-" + language, kKit);
    const std::string project = "my_" + language;
    EXPECT_EQ(p.name, project);
    EXPECT_TRUE(
        contains(content(p, "CMakeLists.txt"),
                 "find_package(sandbox 0.1 CONFIG REQUIRED COMPONENTS engine_" + language + ")"));
    EXPECT_TRUE(contains(content(p, "src/engine.cc"),
                         "#include <sandbox/engines/" + language + "_engine.h>"));
    EXPECT_TRUE(
        contains(content(p, "src/engine.cc"), "sandbox::engines::make_" + language + "_engine()"));
    const std::string& unit = content(p, "deploy/" + project + ".service");
    EXPECT_TRUE(contains(unit, "ExecStart=/opt/" + project + "/bin/" + project +
                                   " --listen 127.0.0.1:8080 --data /var/lib/" + project));
    const auto programs = conformance(p);
    EXPECT_FALSE(programs.at("simple").at("code").as_string().empty());
    EXPECT_FALSE(programs.at("error").at("code").as_string().empty());
    EXPECT_EQ(programs.at("stateful").is_null(), language == "calc") << language;
    // The programs are the engine's own (engines/<language>/conformance.json), as written.
    EXPECT_EQ(content(p, "conformance.json"),
              read(fs::path(SANDBOX_TEST_ENGINES_DIR) / language / "conformance.json"))
        << language;
    expect_no_placeholders(p);
  }
}

TEST(LanguageProject, NamesTheProjectAfterTheDirectory) {
  EXPECT_EQ(language_project("lua", "Lua-Runtime", kKit).name, "lua_runtime");
  EXPECT_EQ(language_project("lua", "/srv/123/", kKit).name, "rt_123");
  EXPECT_EQ(language_project("lua", "new", kKit).name, "new_rt");
  EXPECT_EQ(language_project("lua", std::string(40, 'a'), kKit).name, std::string(32, 'a'));
}

TEST(LanguageProject, RefusesAnUnknownLanguage) {
  try {
    language_project("cobol", "x", kKit);
    FAIL();
  } catch (const ScaffoldError& e) {
    EXPECT_TRUE(contains(e.what(), "unknown language 'cobol'")) << e.what();
    EXPECT_TRUE(contains(e.what(), "--custom")) << e.what();
  }
}

// kv is the tests' engine: no installed kit has sandbox::engine_kv, so a kv project could never
// configure.
TEST(LanguageProject, DoesNotOfferTheTestEngine) {
  try {
    language_project("kv", "kv-runtime", kKit);
    FAIL();
  } catch (const ScaffoldError& e) {
    EXPECT_TRUE(contains(e.what(), "unknown language 'kv'")) << e.what();
    EXPECT_TRUE(contains(e.what(), "built-in: calc, javascript,")) << e.what();
  }
}

TEST(WriteProject, WritesEveryFileInANewDirectory) {
  TempDir tmp;
  const Project p = custom_project("calc2", std::nullopt, kKit);
  write_project(p, tmp.path() / "calc2");
  for (const auto& f : p.files) EXPECT_EQ(read(tmp.path() / "calc2" / f.path), f.content) << f.path;
}

TEST(WriteProject, NeverTouchesAnExistingPath) {
  TempDir tmp;
  const fs::path dir = tmp.path() / "calc2";
  fs::create_directory(dir);
  std::ofstream(dir / "mine.txt") << "keep me";
  const Project p = custom_project("calc2", std::nullopt, kKit);
  try {
    write_project(p, dir);
    FAIL() << "an existing directory must be refused";
  } catch (const ScaffoldError& e) {
    EXPECT_TRUE(contains(e.what(), "already exists")) << e.what();
  }
  EXPECT_EQ(read(dir / "mine.txt"), "keep me");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  std::ofstream(tmp.path() / "afile") << "x";
  EXPECT_THROW(write_project(p, tmp.path() / "afile"), ScaffoldError);
  EXPECT_EQ(read(tmp.path() / "afile"), "x");
  fs::create_symlink(tmp.path() / "nowhere", tmp.path() / "dangling");
  EXPECT_THROW(write_project(p, tmp.path() / "dangling"), ScaffoldError);
  EXPECT_THROW(write_project(p, tmp.path() / "no" / "parent"), ScaffoldError);
}

TEST(WriteProject, RemovesWhatItCreatedWhenAWriteFails) {
  TempDir tmp;
  // "sub" is written as a file, so "sub/x" cannot be created.
  const Project p{.name = "p", .files = {{"a.txt", "a"}, {"sub", "file"}, {"sub/x", "x"}}};
  EXPECT_THROW(write_project(p, tmp.path() / "p"), ScaffoldError);
  EXPECT_FALSE(fs::exists(tmp.path() / "p"));
}

TEST(KitPrefix, FoundBesideAnInstalledSandboxProgram) {
  TempDir tmp;
  const fs::path prefix = tmp.path() / "kit";
  fs::create_directories(prefix / "bin");
  std::ofstream(prefix / "bin" / "sandbox") << "";
  EXPECT_EQ(detect_kit_prefix(prefix / "bin" / "sandbox"), "");  // no package beside it
  fs::create_directories(prefix / "lib" / "x86_64-linux-gnu" / "cmake" / "sandbox");
  std::ofstream(prefix / "lib" / "x86_64-linux-gnu" / "cmake" / "sandbox" / "sandboxConfig.cmake");
  EXPECT_EQ(detect_kit_prefix(prefix / "bin" / "sandbox"), fs::canonical(prefix).string());
  fs::create_directories(tmp.path() / "build" / "tools");
  std::ofstream(tmp.path() / "build" / "tools" / "sandbox") << "";
  EXPECT_EQ(detect_kit_prefix(tmp.path() / "build" / "tools" / "sandbox"), "");
  EXPECT_EQ(detect_kit_prefix(tmp.path() / "missing"), "");
}

TEST(Templates, EveryTemplateFileIsEmbeddedAsIs) {
  const fs::path dir = SANDBOX_SCAFFOLD_TEMPLATES;
  std::vector<std::string> on_disk;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) on_disk.push_back(fs::relative(e.path(), dir).string());
  }
  std::sort(on_disk.begin(), on_disk.end());
  std::vector<std::string> embedded;
  for (auto p : template_paths()) embedded.emplace_back(p);
  std::sort(embedded.begin(), embedded.end());
  EXPECT_EQ(embedded, on_disk) << "src/scaffold/CMakeLists.txt lists the templates";
  for (const auto& path : on_disk) EXPECT_EQ(template_text(path), read(dir / path)) << path;
  EXPECT_THROW(template_text("nope"), std::out_of_range);
}

}  // namespace
}  // namespace sandbox::scaffold

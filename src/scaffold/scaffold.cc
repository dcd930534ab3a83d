#include "scaffold/scaffold.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <span>
#include <system_error>

#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

#include <sandbox/protocol.h>

#include "scaffold/builtin_languages.h"
#include "scaffold/templates.h"
#include "scaffold/wasm_exports.h"

namespace sandbox::scaffold {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxNameLength = 32;

constexpr const char* kReservedNames[] = {
    // C++ keywords and alternative tokens: the name becomes a namespace.
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
    "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
    "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
    "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if",
    "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr",
    "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
    "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast",
    "struct", "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef",
    "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t",
    "while", "xor", "xor_eq",
    // Namespaces the project uses, and target names CMake reserves.
    "std", "sandbox", "boost", "main", "all", "test", "install", "clean", "help", "package"};

std::string json_string(std::string_view s) {
  return boost::json::serialize(boost::json::string(s));
}

// Single-quoted for a POSIX shell.
std::string shell_quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

// Replaces every {{key}} of the template; an unknown key is a bug in the templates.
std::string render(std::string_view template_path, const std::map<std::string, std::string>& vars) {
  const std::string_view text = template_text(template_path);
  std::string out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t open = text.find("{{", pos);
    if (open == std::string_view::npos) break;
    const std::size_t close = text.find("}}", open + 2);
    const std::string_view key = close == std::string_view::npos
                                     ? std::string_view()
                                     : text.substr(open + 2, close - open - 2);
    const bool is_key = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    });
    if (!is_key) {  // not a placeholder (C++ braces, say)
      out.append(text.substr(pos, open + 2 - pos));
      pos = open + 2;
      continue;
    }
    const auto it = vars.find(std::string(key));
    if (it == vars.end()) {
      throw std::logic_error("template " + std::string(template_path) + " uses unknown {{" +
                             std::string(key) + "}}");
    }
    out.append(text.substr(pos, open - pos));
    out.append(it->second);
    pos = close + 2;
  }
  out.append(text.substr(pos));
  return out;
}

struct Programs {
  std::string simple;
  std::string simple_result;  // "" = no expectation
  std::string error;
  bool stateful = false;
  std::string define;
  std::string use;
  std::string use_result;
};

std::string conformance_json(const Programs& p) {
  std::string out = "{\n  \"simple\": {\"code\": " + json_string(p.simple);
  out += ", \"expectResultText\": " + json_string(p.simple_result) + "},\n";
  out += "  \"error\": {\"code\": " + json_string(p.error) + "},\n";
  if (p.stateful) {
    out += "  \"stateful\": {\"define\": " + json_string(p.define) +
           ", \"use\": " + json_string(p.use) +
           ", \"expectResultText\": " + json_string(p.use_result) + "}\n";
  } else {
    out += "  \"stateful\": null\n";
  }
  return out + "}\n";
}

std::string prefix_option(const KitInfo& kit) {
  if (kit.prefix.empty()) return " -DCMAKE_PREFIX_PATH=/path/to/the/kit";
  if (kit.prefix == "/usr" || kit.prefix == "/usr/local") return "";
  return " -DCMAKE_PREFIX_PATH=" + shell_quote(kit.prefix);
}

std::string kit_series(const std::string& version) {
  const auto first = version.find('.');
  if (first == std::string::npos) return version;
  const auto second = version.find('.', first + 1);
  return version.substr(0, second);
}

std::map<std::string, std::string> common_vars(const std::string& project, const KitInfo& kit) {
  return {{"project", project},
          {"BINDING", upper(project)},
          {"kit_version", kit.version},
          {"kit_series", kit_series(kit.version)},
          {"protocol", std::to_string(kit.protocol)},
          {"prefix_option", prefix_option(kit)}};
}

// "a, b, c".
std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

void add(Project& p, std::string path, std::string content) {
  p.files.push_back(ProjectFile{std::move(path), std::move(content)});
}

void add_common_files(Project& p, const std::map<std::string, std::string>& vars) {
  add(p, "src/engine.h", render("common/engine.h", vars));
  add(p, "src/main.cc", render("common/main.cc", vars));
  add(p, "tests/conformance_test.cc", render("common/conformance_test.cc", vars));
  add(p, ".gitignore", render("common/gitignore", vars));
}

std::vector<std::string> build_commands(const std::string& project, const KitInfo& kit, bool data) {
  return {"cmake -S . -B build" + prefix_option(kit) +
              " && cmake --build build && ctest --test-dir build --output-on-failure",
          "build/" + project + " --listen 127.0.0.1:8080" + (data ? " --data data" : "")};
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScaffoldError("cannot read " + path.string() + ": " + std::strerror(errno));
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw ScaffoldError("cannot read " + path.string());
  return bytes;
}

// Writes `content` to a new file (never an existing one).
void write_new_file(const fs::path& path, const std::string& content) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "wbx"), &std::fclose);
  if (!f) throw ScaffoldError("cannot create " + path.string() + ": " + std::strerror(errno));
  if (!content.empty() &&
      std::fwrite(content.data(), 1, content.size(), f.get()) != content.size()) {
    throw ScaffoldError("cannot write " + path.string() + ": " + std::strerror(errno));
  }
  if (std::fclose(f.release()) != 0) {
    throw ScaffoldError("cannot write " + path.string() + ": " + std::strerror(errno));
  }
}

}  // namespace

KitInfo this_kit(std::string prefix) {
  return KitInfo{.version = SANDBOX_KIT_VERSION,
                 .protocol = kInterpreterProtocolVersion,
                 .prefix = std::move(prefix)};
}

std::string detect_kit_prefix(const fs::path& executable) {
  std::error_code ec;
  const fs::path exe = fs::canonical(executable, ec);
  if (ec || exe.parent_path().filename() != "bin") return {};
  const fs::path prefix = exe.parent_path().parent_path();
  const fs::path config = fs::path("cmake") / "sandbox" / "sandboxConfig.cmake";
  for (const char* lib : {"lib", "lib64"}) {
    if (fs::exists(prefix / lib / config, ec)) return prefix.string();
    // Debian's multiarch layout: lib/x86_64-linux-gnu/cmake/...
    for (fs::directory_iterator it(prefix / lib, ec), end; !ec && it != end; it.increment(ec)) {
      if (fs::exists(it->path() / config, ec)) return prefix.string();
    }
    ec.clear();
  }
  return {};
}

const std::vector<std::string>& builtin_languages() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& l : builtin_language_table()) out.emplace_back(l.name);
    return out;
  }();
  return names;
}

void check_project_name(std::string_view name) {
  const bool valid_chars = !name.empty() && name[0] >= 'a' && name[0] <= 'z' &&
                           std::all_of(name.begin(), name.end(), [](char c) {
                             return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
                           });
  if (!valid_chars || name.size() > kMaxNameLength) {
    throw ScaffoldError("invalid name '" + std::string(name) +
                        "': use 1-32 characters of a-z, 0-9 and _, starting with a letter (it "
                        "names the language, the C++ namespace and the CMake targets)");
  }
  if (std::find(std::begin(kReservedNames), std::end(kReservedNames), name) !=
      std::end(kReservedNames)) {
    throw ScaffoldError("invalid name '" + std::string(name) +
                        "': it is a C++ keyword or a name the project needs for itself");
  }
}

Project custom_project(const std::string& name, const std::optional<fs::path>& wasm,
                       const KitInfo& kit, ModuleAbi abi) {
  check_project_name(name);
  auto vars = common_vars(name, kit);
  vars["example"] = shell_quote("6 * 7");
  Project p{.name = name, .files = {}, .description = {}, .commands = {}};
  if (!wasm) {
    add(p, "CMakeLists.txt", render("custom/CMakeLists.txt", vars));
    add(p, "src/engine.cc", render("custom/engine.cc", vars));
    add(p, "README.md", render("custom/README.md", vars));
    add(p, "conformance.json",
        conformance_json({.simple = "1 + 1", .simple_result = "2", .error = "1 / 0"}));
    add_common_files(p, vars);
    p.description = "a stateless runtime; its engine is src/engine.cc";
    p.commands = build_commands(name, kit, false);
    return p;
  }

  std::string module = read_file(*wasm);
  const bool wasmify = abi == ModuleAbi::kWasmify;
  const std::vector<std::string> exports = wasm_function_exports(module);
  const auto missing =
      wasmify ? missing_wasmify_exports(exports) : missing_embedded_exports(exports);
  if (!missing.empty()) {
    throw ScaffoldError(wasm->string() + " does not implement the " +
                        (wasmify ? "wasmify" : "embedded") +
                        " ABI (missing exports: " + join(missing) + "); see " +
                        (wasmify ? "sandbox/wasmify.h" : "sandbox/guest/sandbox_guest.h"));
  }
  vars["guest_abi"] = wasmify ? "the wasmify ABI: wasm_init, wasm_alloc, wasm_free, w_0_<N>"
                              : "the embedded ABI of <sandbox/guest/sandbox_guest.h>";
  vars["init_flag"] = wasmify ? "wasmify" : "wasm";
  vars["host"] = wasmify ? "the kit's wasmify driver" : "the embedded session host";
  const std::string templates = wasmify ? "wasmify/" : "wasm/";
  vars["engine_sources"] = wasmify ? "src/engine.cc src/driver.cc" : "src/engine.cc";
  if (wasmify) vars["methods"] = join(wasmify_methods(exports));
  add(p, "CMakeLists.txt", render("wasm/CMakeLists.txt", vars));
  add(p, "src/engine.cc", render(templates + "engine.cc", vars));
  if (wasmify) {
    add(p, "src/driver.h", render("wasmify/driver.h", vars));
    add(p, "src/driver.cc", render("wasmify/driver.cc", vars));
  }
  add(p, "README.md", render(templates + "README.md", vars));
  add(p, "conformance.json", conformance_json({.stateful = true}));
  add(p, "wasm/" + name + ".wasm", std::move(module));
  add_common_files(p, vars);
  p.description = "a runtime around wasm/" + name + ".wasm; its engine is src/engine.cc. " +
                  (wasmify ? std::string("First complete its driver in src/driver.cc (the method "
                                         "ids, how a request is phrased and its answer read), "
                                         "then write ")
                           : std::string("First write ")) +
                  "three programs of the guest's language into conformance.json";
  p.commands = build_commands(name, kit, true);
  return p;
}

Project language_project(const std::string& language, const fs::path& dir, const KitInfo& kit) {
  const std::span<const BuiltinLanguage> languages = builtin_language_table();
  const auto it = std::find_if(languages.begin(), languages.end(),
                               [&](const BuiltinLanguage& l) { return language == l.name; });
  if (it == languages.end()) {
    std::string names;
    for (const auto& n : builtin_languages()) names += (names.empty() ? "" : ", ") + n;
    throw ScaffoldError("unknown language '" + language + "' (built-in: " + names +
                        "; for a new language, use --custom NAME)");
  }

  // The project is named after the directory.
  std::string project;
  fs::path last = dir.filename().empty() ? dir.parent_path().filename() : dir.filename();
  for (unsigned char c : last.string()) {
    project += std::isalnum(c) ? static_cast<char>(std::tolower(c)) : '_';
  }
  if (project.empty() || !(project[0] >= 'a' && project[0] <= 'z')) project = "rt_" + project;
  if (project.size() > kMaxNameLength) project.resize(kMaxNameLength);
  if (std::find(std::begin(kReservedNames), std::end(kReservedNames), project) !=
      std::end(kReservedNames)) {
    project += "_rt";
  }
  check_project_name(project);

  auto vars = common_vars(project, kit);
  vars["language"] = language;
  vars["example"] = shell_quote(it->simple);
  Project p{.name = project, .files = {}, .description = {}, .commands = {}};
  add(p, "CMakeLists.txt", render("language/CMakeLists.txt", vars));
  add(p, "src/engine.cc", render("language/engine.cc", vars));
  add(p, "README.md", render("language/README.md", vars));
  add(p, "deploy/" + project + ".service", render("language/service", vars));
  const bool stateful = *it->define != '\0';
  add(p, "conformance.json",
      conformance_json({.simple = it->simple,
                        .simple_result = it->simple_result,
                        .error = it->error,
                        .stateful = stateful,
                        .define = it->define,
                        .use = it->use,
                        .use_result = it->use_result}));
  add_common_files(p, vars);
  p.description = "the built-in " + language + " engine as a deployable runtime, " + project +
                  "; README.md says how to deploy it with deploy/" + project + ".service";
  p.commands = build_commands(project, kit, true);
  return p;
}

void write_project(const Project& project, const fs::path& dir) {
  std::error_code ec;
  if (fs::symlink_status(dir, ec).type() != fs::file_type::not_found) {
    throw ScaffoldError(dir.string() + " already exists: sandbox init never overwrites anything");
  }
  const fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec)) {
    throw ScaffoldError("cannot create " + dir.string() + ": " + parent.string() +
                        " is not a directory");
  }
  if (!fs::create_directory(dir, ec)) {
    throw ScaffoldError("cannot create " + dir.string() + ": " +
                        (ec ? ec.message() : std::string("it already exists")));
  }
  try {
    for (const auto& file : project.files) {
      const fs::path path = dir / fs::path(file.path);
      fs::create_directories(path.parent_path(), ec);
      if (ec)
        throw ScaffoldError("cannot create " + path.parent_path().string() + ": " + ec.message());
      write_new_file(path, file.content);
    }
  } catch (...) {
    fs::remove_all(dir, ec);  // the directory is ours: we just created it
    throw;
  }
}

}  // namespace sandbox::scaffold

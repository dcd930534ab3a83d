// sandbox-wasmc: compiles a .wasm into C that links into the program (the build integration,
// sandbox_add_wasm_module, is described in cmake/SandboxWasm.cmake).
//
//   sandbox-wasmc INPUT.wasm --name NAME --out-dir DIR [--fuel] [--max-pages N] [--split N]
//                 [--provide MODULE[.NAME]]... [--wasm2c PATH] [--exceptions]
//
// Steps: check the module is supported; (--fuel) add fuel metering with binaryen; (--max-pages)
// cap the memory maximum; write DIR/NAME.wasm; run wasm2c; split its C into N units with the
// data segments in a blob; write the import wrappers/stubs, the descriptor and NAME.h.
// --exceptions accepts Wasm exception handling (the legacy try/catch/throw instructions clang
// emits, e.g. for -mllvm -wasm-enable-sjlj): wasm2c --enable-exceptions, with its branches out
// of try blocks repaired (try_exits.h); the runtime's exceptions.c implements what that code
// calls.
// Exit status 0 on success, 1 with a message on stderr otherwise.
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <openssl/evp.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sandbox/version.h>

#include "c_splitter.h"
#include "descriptor_writer.h"
#include "fuel_pass.h"
#include "try_exits.h"
#include "wasm2c_header.h"
#include "wasm_binary.h"

extern char** environ;

namespace sandbox::wasmc {
namespace {

namespace fs = std::filesystem;

std::vector<std::uint8_t> read_binary(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& path, const void* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string sha256_hex(const std::vector<std::uint8_t>& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("sha256 failed");
  }
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    char buf[3];
    std::snprintf(buf, sizeof buf, "%02x", digest[i]);
    out += buf;
  }
  return out;
}

void run(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), environ);
  if (rc != 0) throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("waitpid failed");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error(argv[0] + " failed (status " + std::to_string(status) + ")");
  }
}

// With --exceptions: wasm2c 1.0.32 opens every `try` with wasm_rt_try, which is
// sigsetjmp(buf, 1) when its signal handler is configured: a signal-mask system call per try,
// and another per throw (longjmp restores the mask). This runtime never needs the mask back:
// a Wasm throw only runs in guest code, which never changes the mask, and traps leave through
// the guest call's own jump buffer (src/wasm/call.c), which does not save it either.
constexpr const char* kTryWithoutSignalMask =
    "/* sandbox-wasmc --exceptions: a try saves no signal mask (see sandbox-wasmc main.cc) */\n"
    "#undef wasm_rt_try\n"
    "#define wasm_rt_try(target) sigsetjmp(target, 0)\n";

bool valid_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

int main_impl(int argc, char** argv) {
  CLI::App app{"Compile a .wasm into C for the sandbox Wasm runtime (fuel pass + wasm2c + split)"};
  // Answered before the required options are checked (docs/redistribution.md#versions).
  app.set_version_flag("--version", "sandbox-wasmc " + std::string(sandbox::kVersion));
  std::string input;
  std::string name;
  std::string out_dir;
  bool fuel = false;
  std::uint64_t max_pages = 0;
  unsigned split = 1;
  std::vector<std::string> provide;
  std::string wasm2c = "wasm2c";
  bool exceptions = false;
  app.add_option("input", input, "input .wasm")->required();
  app.add_option("--name", name, "module name (a C identifier; symbols are prefixed with it)")
      ->required();
  app.add_option("--out-dir", out_dir, "output directory")->required();
  app.add_flag("--fuel", fuel, "add fuel metering (exported i64 global `fuel`)");
  app.add_option("--max-pages", max_pages, "cap the memory maximum at N 64 KiB pages");
  app.add_option("--split", split, "number of C compilation units for the function bodies")
      ->check(CLI::Range(1u, 256u));
  app.add_option("--provide", provide,
                 "import module or module.name the host provides (in addition to "
                 "wasi_snapshot_preview1 and sandbox); others become trapping stubs");
  app.add_option("--wasm2c", wasm2c, "the wasm2c program");
  app.add_flag("--exceptions", exceptions,
               "accept Wasm exception handling (legacy try/catch; wasm2c --enable-exceptions)");
  CLI11_PARSE(app, argc, argv);

  if (!valid_name(name)) {
    std::cerr << "sandbox-wasmc: --name must be a C identifier, got '" << name << "'\n";
    return 1;
  }
  auto start = std::chrono::steady_clock::now();
  fs::path dir(out_dir);
  fs::create_directories(dir);

  std::vector<std::uint8_t> wasm = read_binary(input);
  WasmModule original = read_wasm_module(wasm);
  check_supported(original);
  if (original.has_tag_section && !exceptions) {
    std::cerr << "sandbox-wasmc: the module uses Wasm exception handling (it has a tag section); "
                 "compile it with --exceptions (sandbox_add_wasm_module: EXCEPTIONS ON)\n";
    return 1;
  }
  if (fuel) wasm = add_fuel_metering(wasm, original.has_name_section).wasm;
  if (max_pages > 0) wasm = cap_memory_maximum(wasm, max_pages);
  WasmModule module = read_wasm_module(wasm);

  fs::path final_wasm = dir / (name + ".wasm");
  write_file(final_wasm, wasm.data(), wasm.size());
  fs::path c_file = dir / (name + "_w2c.c");
  std::vector<std::string> wasm2c_command = {wasm2c, final_wasm.string(), "-n", name,
                                             "-o",   c_file.string()};
  if (exceptions) wasm2c_command.push_back("--enable-exceptions");
  run(wasm2c_command);
  Wasm2cHeader header = parse_wasm2c_header(read_text(dir / (name + "_w2c.h")));

  ModulePlan plan;
  plan.name = name;
  plan.wasm_sha256 = sha256_hex(wasm);
  plan.provided = {"wasi_snapshot_preview1", kRuntimeImportModule};
  plan.provided.insert(provide.begin(), provide.end());
  GeneratedGlue glue = generate_glue(plan, module, header);

  SplitOptions options;
  options.name = name;
  options.out_dir = dir;
  options.parts = split;
  options.extra_common = glue.common_extra;
  if (exceptions) options.extra_common += kTryWithoutSignalMask;
  options.renames = glue.renames;
  if (glue.metered) {
    options.inline_functions = {kFuelTickFunction};
    options.fuel_field = glue.fuel_field;
    options.fuel_tick = kFuelTickFunction;
  }
  if (const InstanceField* memory = header.memory_field()) options.memory_field = memory->name;
  SplitResult result;
  {
    std::string source = read_text(c_file);
    if (exceptions) source = repair_try_exits(source).source;
    result = split_wasm2c_source(source, options);
  }
  fs::remove(c_file);  // the parts hold all of it; it can be hundreds of MB
  for (SplitFile& file : result.files) {
    write_file(dir / file.name, file.contents.data(), file.contents.size());
    std::string().swap(file.contents);  // written: free it before the next
  }

  write_file(dir / (name + "_descriptor.c"), glue.descriptor_c.data(), glue.descriptor_c.size());
  write_file(dir / (name + "_stubs.c"), glue.stubs_c.data(), glue.stubs_c.size());
  write_file(dir / (name + ".h"), glue.public_header.data(), glue.public_header.size());

  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "sandbox-wasmc: %s: %zu bytes%s, %zu functions in %u parts, %zu data bytes, %u provided "
      "and %u stubbed imports, %.1f s\n",
      name.c_str(), wasm.size(), glue.metered ? " (metered)" : "", result.functions, split,
      result.data_bytes, glue.provided_imports, glue.stubbed_imports, seconds);
  return 0;
}

}  // namespace
}  // namespace sandbox::wasmc

int main(int argc, char** argv) {
  try {
    return sandbox::wasmc::main_impl(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "sandbox-wasmc: " << e.what() << "\n";
    return 1;
  }
}

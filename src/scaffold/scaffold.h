// The project generator behind `sandbox init`: new runtime projects that build against the
// installed kit (find_package(sandbox), cmake/SandboxInstall.cmake).
//
//   sandbox init --custom NAME [--wasm PATH | --wasmify PATH] [DIR]
//                                                    custom_project() + write_project()
//   sandbox init LANGUAGE DIR                        language_project() + write_project()
//
// Every project has the same shape: CMakeLists.txt, src/engine.h + src/engine.cc (make_engine()
// in namespace PROJECT), src/main.cc (the runtime server), tests/conformance_test.cc with
// conformance.json (the kit's conformance suite wired to CTest), README.md and .gitignore.
//  - custom: a stateless engine skeleton like the calc example (an integer-arithmetic
//    language to replace), with conformance programs for it.
//  - custom with a Wasm module: the module is copied to wasm/NAME.wasm and compiled with
//    sandbox_add_wasm_module(); the engine is make_embedded_engine() around it (sessions,
//    snapshots, fuel). conformance.json holds empty programs for the author to write: the
//    generator cannot know the guest's language.
//  - custom with a wasmify module (ModuleAbi::kWasmify): the same, with make_wasmify_engine()
//    and a driver skeleton to complete in src/driver.h + src/driver.cc (make_driver(): the init
//    and eval method ids, left empty, and how a request is phrased and its answer read); the
//    module's w_0_<N> exports are listed for the author. docs/wasmify-abi.md.
//  - language: the kit's built-in engine (sandbox::engine_LANGUAGE), served by the same
//    main.cc, with that language's conformance programs (those of engines/LANGUAGE/
//    conformance.json, builtin_languages.h) and a systemd unit (deploy/).
//
// Generation is pure (a Project value); write_project() is the only function touching the disk
// besides reading the Wasm module. Nothing existing is ever overwritten.
//
// Thread-safety: all functions are safe to call concurrently.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sandbox::scaffold {

// Bad input (an invalid name, an unknown language, a module that is not an embedded-ABI or
// wasmify reactor) or a file-system failure; the message says which.
class ScaffoldError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The kit a generated project builds against.
struct KitInfo {
  std::string version;  // the package version, e.g. "0.1.0" (find_package asks for "0.1")
  int protocol = 0;     // the wire protocol version
  std::string prefix;   // where the kit is installed ("" when unknown)
};

// This build's kit, installed at `prefix` ("" when unknown).
KitInfo this_kit(std::string prefix = {});

// The installation prefix of a kit whose `sandbox` program is `executable` (PREFIX/bin/sandbox
// with PREFIX/lib*/cmake/sandbox/sandboxConfig.cmake beside it), or "" when it does not look
// installed (a build tree).
std::string detect_kit_prefix(const std::filesystem::path& executable);

struct ProjectFile {
  std::string path;     // relative, '/'-separated
  std::string content;  // bytes
};

struct Project {
  std::string name;  // the project (CMake project, executable, C++ namespace)
  std::vector<ProjectFile> files;
  std::string description;            // one sentence, e.g. "a stateless runtime (...)"
  std::vector<std::string> commands;  // what to run next, inside the project's directory
};

// The built-in languages `sandbox init LANGUAGE DIR` knows, in the order of the engine manifest
// (engines/engines.cmake): the engines a kit installs (not the tests' engines, which no kit has).
const std::vector<std::string>& builtin_languages();

// Throws ScaffoldError unless `name` is a valid project name: 1-32 characters of [a-z0-9_]
// starting with a letter, and not a C++ keyword (it becomes a namespace and target names).
void check_project_name(std::string_view name);

// Which guest ABI a custom project's module implements.
enum class ModuleAbi : std::uint8_t {
  kEmbedded,  // ours: --wasm (include/sandbox/embedded.h)
  kWasmify,   // goccy's wasmify: --wasmify (include/sandbox/wasmify.h)
};

// A custom runtime named `name`; with `wasm`, around that module (read from disk, which must
// be a Wasm binary exporting the functions of `abi`). Throws ScaffoldError.
Project custom_project(const std::string& name, const std::optional<std::filesystem::path>& wasm,
                       const KitInfo& kit, ModuleAbi abi = ModuleAbi::kEmbedded);

// A deployable runtime for the built-in `language`, named after the last component of `dir`
// (made a valid project name: lowercased, other characters as '_'). Throws ScaffoldError for an
// unknown language.
Project language_project(const std::string& language, const std::filesystem::path& dir,
                         const KitInfo& kit);

// Creates `dir` (its parent must exist, `dir` must not) and writes the project into it. Refuses
// an existing `dir` without touching it; on a failure midway, removes what it created. Throws
// ScaffoldError.
void write_project(const Project& project, const std::filesystem::path& dir);

}  // namespace sandbox::scaffold

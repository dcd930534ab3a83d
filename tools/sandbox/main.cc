// sandbox: the command-line client of runtimes and sandboxd.
//
//   sandbox run (--language L | --binding B) [--env K=V]... SOURCE      stateless, on sandboxd
//   sandbox run --url URL [--env K=V]... SOURCE                          stateless, on a runtime
//   sandbox run --sandbox ID (--binding B | --language L | --context C) [--env K=V]...
//               [--unset K]... SOURCE                                    in a sandbox
//     SOURCE: FILE or CODE (an existing file's contents, else the text) | -c CODE | --file PATH | -
//   sandbox repl --sandbox ID (--language L | --binding B | --context C)
//   sandbox files ls|cat|put|rm|mkdir --sandbox ID PATH ...
//   sandbox contexts ls|new|rm --sandbox ID ...
//   sandbox info (--url URL | --sandbox ID)
//   sandbox languages
//   sandbox mcp                                      an MCP server over stdio (src/mcp)
//   sandbox init --custom NAME [--wasm PATH | --wasmify PATH] [DIR]
//                                                    a new runtime project (src/scaffold)
//   sandbox init LANGUAGE DIR                        a deployable runtime of a built-in engine
//
// Sandbox commands talk to --server (default $SANDBOXD_URL, else http://127.0.0.1:8787) with
// --api-key (default $SANDBOXD_API_KEY). Exit status: 0 on success, 1 when the guest raised an
// error (or hit a limit), 2 when the request failed (bad input, server unreachable, an error
// response). docs/cli.md is the manual.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>

#include <CLI/CLI.hpp>
#include <unistd.h>

#include <sandbox/client.h>
#include <sandbox/protocol.h>
#include <sandbox/version.h>

#include "line_editor.h"
#include "live_output.h"
#include "mcp/mcp_http_backend.h"
#include "mcp/mcp_stdio.h"
#include "output.h"
#include "repl.h"
#include "scaffold/scaffold.h"

namespace {

using sandbox::cli::kGuestError;
using sandbox::cli::kRequestFailed;

// A usage problem found after parsing.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string read_all(std::istream& in) {
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read " + path);
  return read_all(in);
}

// The code of `run` is at most the protocol's code limit (kMaxCodeBytes, docs/protocol.md): a
// larger file or standard input is refused here, before it is read whole.
std::string too_large(const std::string& what) {
  return what + " is over the code limit of " + std::to_string(sandbox::kMaxCodeBytes) + " bytes";
}

// Reads at most kMaxCodeBytes from `in` (one more byte tells that there was more).
std::string read_code(std::istream& in, const std::string& what) {
  std::string code(sandbox::kMaxCodeBytes + 1, '\0');
  in.read(code.data(), static_cast<std::streamsize>(code.size()));
  code.resize(static_cast<std::size_t>(in.gcount()));
  if (code.size() > sandbox::kMaxCodeBytes) throw UsageError(too_large(what));
  return code;
}

// A code file (--file PATH, or the positional SOURCE naming an existing file): a regular file
// (or a link to one) of at most kMaxCodeBytes, the size checked before reading.
std::string read_code_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw UsageError("cannot read " + path + ": no such file");
  if (fs::is_directory(st)) throw UsageError("cannot run " + path + ": it is a directory");
  if (!fs::is_regular_file(st)) throw UsageError("cannot run " + path + ": not a regular file");
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > sandbox::kMaxCodeBytes) {
    throw UsageError(too_large(path + " (" + std::to_string(size) + " bytes)"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read " + path + ": " + std::strerror(errno));
  return read_code(in, path);
}

struct Globals {
  std::string server = "http://127.0.0.1:8787";
  std::string api_key;
  sandbox::ClientOptions client() const { return {.api_key = api_key}; }
};

// Where `run` takes its code from (docs/cli.md#run).
struct CodeSource {
  std::string positional;  // SOURCE: an existing file's path, "-", or the code itself
  std::string code;        // -c/--code: the code itself, never a file name
  std::string file;        // --file PATH
};

// The code of `run`: the positional SOURCE (the contents of the file it names when one exists,
// standard input for "-", else the text itself), -c/--code, or --file.
std::string code_from(const CodeSource& source) {
  const int given = !source.positional.empty() + !source.code.empty() + !source.file.empty();
  if (given > 1) throw UsageError("pass the code one way: SOURCE, -c CODE or --file PATH");
  if (!source.code.empty()) return source.code;
  if (!source.file.empty()) return read_code_file(source.file);
  if (source.positional == "-") return read_code(std::cin, "standard input");
  if (source.positional.empty()) {
    throw UsageError(
        "no code given (pass CODE, FILE, -c CODE, --file PATH, or - for standard input)");
  }
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::status(source.positional, ec))) {
    return read_code_file(source.positional);
  }
  return source.positional;
}

// The entry of GET /languages serving `language`: by id, binding or language.
sandbox::LanguageInfo language_entry(const Globals& g, const std::string& language) {
  const std::string wanted = sandbox::normalize_language(language);
  const auto languages = sandbox::list_languages(g.server, g.client());
  std::string available;
  for (const auto& l : languages) {
    if (l.id == wanted || l.binding == language || l.language == wanted) return l;
    available += (available.empty() ? "" : ", ") + l.id;
  }
  throw UsageError("no binding runs '" + language + "' on " + g.server +
                   " (available: " + available + ")");
}

// The binding serving `language` on the server.
std::string binding_for_language(const Globals& g, const std::string& language) {
  return language_entry(g, language).binding;
}

std::map<std::string, std::optional<std::string>> env_from(const std::vector<std::string>& set,
                                                           const std::vector<std::string>& unset) {
  std::map<std::string, std::optional<std::string>> env;
  for (const auto& kv : set) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw UsageError("--env expects NAME=VALUE, got '" + kv + "'");
    }
    env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& k : unset) env[k] = std::nullopt;
  return env;
}

std::string size_text(std::uint64_t n) {
  std::ostringstream s;
  s << std::setw(9) << n;
  return s.str();
}

void print_info(const sandbox::SandboxInfo& info) {
  std::cout << "sandbox:    " << info.id << "\ncreated:    " << info.created_at
            << "\nlast used:  " << info.last_used << "\nexpires:    "
            << (info.expires_at ? sandbox::iso8601_ms(*info.expires_at) : std::string("never"))
            << "\nfile API:   " << (info.file_api ? "enabled" : "disabled")
            << "\nworkspace:  " << info.workspace_entries << " entries, " << info.workspace_bytes
            << " bytes\n";
  std::cout << "env vars:  ";
  if (info.env_vars.empty()) std::cout << " (none)";
  for (const auto& [k, v] : info.env_vars) std::cout << " " << k << "=" << v;
  std::cout << "\ncontexts:   " << info.contexts.size() << "\n";
  for (const auto& c : info.contexts) {
    std::cout << "  " << c.id << "  " << c.binding << " (" << c.language << ", " << c.engine
              << ")  cwd " << c.cwd << "  " << c.executions << " executions";
    if (c.snapshot) {
      std::cout << "  snapshot " << c.snapshot->pages << " pages"
                << (c.snapshot->stale ? " (stale)" : "");
    }
    std::cout << "\n";
  }
}

// `sandbox init`: writes a new project directory (never over an existing one) and prints what
// to run next. The kit's prefix (for -DCMAKE_PREFIX_PATH) is where this program is installed.
int run_init(const std::string& custom, const std::string& wasm, const std::string& wasmify,
             const std::vector<std::string>& args) {
  namespace scaffold = sandbox::scaffold;
  const auto kit = scaffold::this_kit(scaffold::detect_kit_prefix("/proc/self/exe"));
  scaffold::Project project;
  std::filesystem::path dir;
  if (!custom.empty()) {
    if (args.size() > 1) throw UsageError("init --custom NAME takes at most one directory");
    if (!wasm.empty() && !wasmify.empty()) {
      throw UsageError("--wasm and --wasmify are two kinds of module: give one");
    }
    const std::string& module = wasmify.empty() ? wasm : wasmify;
    project = scaffold::custom_project(
        custom, module.empty() ? std::nullopt : std::optional<std::filesystem::path>(module), kit,
        wasmify.empty() ? scaffold::ModuleAbi::kEmbedded : scaffold::ModuleAbi::kWasmify);
    dir = args.empty() ? custom : args[0];
  } else {
    if (!wasm.empty() || !wasmify.empty()) {
      throw UsageError("--wasm and --wasmify go with --custom NAME");
    }
    if (args.size() != 2) {
      throw UsageError(
          "usage: sandbox init LANGUAGE DIR, or sandbox init --custom NAME "
          "[--wasm PATH | --wasmify PATH] [DIR]");
    }
    project = scaffold::language_project(args[0], args[1], kit);
    dir = args[1];
  }
  scaffold::write_project(project, dir);
  std::cout << "Created " << dir.string() << ": " << project.description << ".\nNext:\n  cd "
            << dir.string() << "\n";
  for (const auto& command : project.commands) std::cout << "  " << command << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sandbox: run code in sandbox-workers runtimes and sandboxd sandboxes"};
  // Answered before the subcommand is required (docs/redistribution.md#versions).
  app.set_version_flag("--version", "sandbox " + std::string(sandbox::kVersion));
  app.require_subcommand(1);
  app.fallthrough();
  Globals g;
  app.add_option("--server", g.server, "sandboxd URL")
      ->envname("SANDBOXD_URL")
      ->capture_default_str();
  app.add_option("--api-key", g.api_key, "Bearer token for sandboxd")->envname("SANDBOXD_API_KEY");

  std::string url, sandbox_id, binding, language, context, cwd;
  CodeSource source;
  std::vector<std::string> env, unset;

  auto* run = app.add_subcommand(
      "run",
      "Run code: stateless on --server's binding for --language/--binding, on a runtime (--url), "
      "or in a sandbox (--sandbox)");
  run->footer(
      "SOURCE that names an existing file runs the file's contents (as `python FILE` does); "
      "otherwise SOURCE is the code itself. To run text that happens to be a file's name, pass "
      "it with -c/--code. The code is at most " +
      std::to_string(sandbox::kMaxCodeBytes) + " bytes.");
  run->add_option("--url", url, "Runtime URL for a stateless run, e.g. http://127.0.0.1:8080");
  run->add_option("--sandbox", sandbox_id,
                  "Sandbox id (without it the run is stateless: POST /execute/{language})");
  run->add_option("--binding", binding,
                  "Binding that runs the code (in a sandbox: its default context)");
  run->add_option("--language", language, "Language (resolved to a binding with GET /languages)");
  run->add_option("--context", context, "Code context id");
  run->add_option("--env", env, "Environment variable NAME=VALUE (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--unset", unset, "Unset a sandbox/context variable for this call (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--file", source.file, "Read the code from a file");
  run->add_option("-c,--code", source.code, "The code itself (never read as a file name)");
  run->add_option("source", source.positional,
                  "A file to run, the code itself, or - to read the code from standard input");

  auto* repl = app.add_subcommand("repl", "Interactive session in a sandbox");
  repl->add_option("--sandbox", sandbox_id, "Sandbox id")->required();
  repl->add_option("--language", language, "Language (resolved to a binding)");
  repl->add_option("--binding", binding, "Binding");
  repl->add_option("--context", context, "Code context id");

  auto* files = app.add_subcommand("files", "The sandbox's /workspace");
  files->require_subcommand(1);
  files->fallthrough();
  files->add_option("--sandbox", sandbox_id, "Sandbox id")->required();
  std::string path, local;
  bool recursive = false, all = false, force = false;
  auto* ls = files->add_subcommand("ls", "List a directory");
  ls->add_option("path", path, "Directory (default /workspace)");
  ls->add_flag("-r,--recursive", recursive, "Descend into directories");
  ls->add_flag("-a,--all", all, "Include hidden entries");
  auto* cat = files->add_subcommand("cat", "Print a file");
  cat->add_option("path", path, "File")->required();
  auto* put = files->add_subcommand("put", "Write a file");
  put->add_option("path", path, "File in the sandbox")->required();
  put->add_option("local", local, "Local file to upload, or - for standard input");
  std::string content;
  put->add_option("--content", content, "The content as text");
  auto* rm = files->add_subcommand("rm", "Delete a file or directory");
  rm->add_option("path", path, "Path")->required();
  rm->add_flag("-r,--recursive", recursive, "Delete a directory and its contents");
  rm->add_flag("-f,--force", force, "No error when missing");
  auto* mkdir = files->add_subcommand("mkdir", "Create a directory");
  mkdir->add_option("path", path, "Directory")->required();
  mkdir->add_flag("-p,--parents", recursive, "Create missing parents");

  auto* contexts = app.add_subcommand("contexts", "The sandbox's code contexts");
  contexts->require_subcommand(1);
  contexts->fallthrough();
  contexts->add_option("--sandbox", sandbox_id, "Sandbox id")->required();
  auto* contexts_ls = contexts->add_subcommand("ls", "List code contexts (oldest first)");
  auto* contexts_new = contexts->add_subcommand("new", "Create a code context");
  contexts_new->add_option("--binding", binding, "Binding");
  contexts_new->add_option("--language", language, "Language (resolved to a binding)");
  contexts_new->add_option("--cwd", cwd, "Working directory (default /workspace)");
  contexts_new->add_option("--env", env, "Environment variable NAME=VALUE (repeatable)")
      ->allow_extra_args(false);
  auto* contexts_rm = contexts->add_subcommand("rm", "Delete a code context");
  contexts_rm->add_option("id", context, "Context id")->required();

  auto* info = app.add_subcommand("info", "Show a runtime (--url) or a sandbox (--sandbox)");
  info->add_option("--url", url, "Runtime URL");
  info->add_option("--sandbox", sandbox_id, "Sandbox id");

  auto* languages = app.add_subcommand("languages", "What the server runs (GET /languages)");

  auto* mcp = app.add_subcommand(
      "mcp", "Serve the MCP tools over stdio for a desktop agent, calling --server");

  std::string custom_name, wasm_path, wasmify_path;
  std::vector<std::string> init_args;
  auto* init = app.add_subcommand(
      "init",
      "Create a runtime project: --custom NAME [--wasm PATH | --wasmify PATH] [DIR], or LANGUAGE "
      "DIR");
  init->add_option("--custom", custom_name,
                   "A runtime for your own language NAME, in DIR (default ./NAME)");
  init->add_option("--wasm", wasm_path,
                   "With --custom: around this WASI reactor implementing the embedded ABI");
  init->add_option("--wasmify", wasmify_path,
                   "With --custom: around this WASI reactor built for the wasmify ABI");
  init->add_option("args", init_args, "LANGUAGE DIR for a built-in language, or DIR with --custom");

  CLI11_PARSE(app, argc, argv);

  if (*init) {
    try {
      return run_init(custom_name, wasm_path, wasmify_path, init_args);
    } catch (const std::exception& e) {  // UsageError or ScaffoldError
      std::cerr << "sandbox: " << e.what() << "\n";
      return kRequestFailed;
    }
  }

  if (*mcp) {
    // Standard output carries the protocol only; problems go to standard error.
    try {
      const sandbox::mcp::McpServer server(sandbox::mcp::http_backend(g.server, g.api_key));
      return sandbox::mcp::serve_mcp_stdio(server, std::cin, std::cout);
    } catch (const std::exception& e) {  // an invalid --server URL
      std::cerr << "sandbox: " << e.what() << "\n";
      return kRequestFailed;
    }
  }

  try {
    const auto open_sandbox = [&] {
      return sandbox::get_sandbox(g.server, sandbox_id, g.client());
    };
    const auto resolved_binding = [&]() -> std::string {
      if (!binding.empty() && !language.empty())
        throw UsageError("pass --binding or --language, not both");
      if (!language.empty()) return binding_for_language(g, language);
      return binding;
    };

    if (*run) {
      const std::string code = code_from(source);
      if (!url.empty() || sandbox_id.empty()) {
        // Stateless: on a runtime (--url), or on --server's binding (POST /execute/{language}).
        if (!url.empty() && !sandbox_id.empty())
          throw UsageError("pass --url or --sandbox, not both");
        if (!context.empty()) throw UsageError("--context needs --sandbox ID");
        std::string language_id;
        if (url.empty()) {
          if (!binding.empty() && !language.empty())
            throw UsageError("pass --binding or --language, not both");
          if (binding.empty() && language.empty()) {
            throw UsageError(
                "pass --language L (or --binding B) to run statelessly on " + g.server +
                ", --sandbox ID to run in a sandbox, or --url URL to run on a runtime");
          }
          language_id = language_entry(g, language.empty() ? binding : language).id;
        } else if (!binding.empty() || !language.empty()) {
          throw UsageError("--url runs on that runtime's language: drop --binding/--language");
        }
        // A stateless run starts with no variables: --unset only drops an --env of the same name.
        sandbox::RunOptions options{.env_vars = env_from(env, unset), .api_key = g.api_key};
        sandbox::cli::LiveOutput live(std::cout, std::cerr);
        options.on_stdout_text = live.on_stdout();
        options.on_stderr_text = live.on_stderr();
        const auto result = url.empty()
                                ? sandbox::run_code_on_server(g.server, language_id, code, options)
                                : sandbox::run_code(url, code, options);
        sandbox::cli::print_result(live.rest(result), std::cout, std::cerr);
        return result.outcome.error ? kGuestError : 0;
      }
      sandbox::SandboxRunOptions options;
      options.env_vars = env_from(env, unset);
      if (!context.empty()) {
        options.context = context;
      } else if (const std::string b = resolved_binding(); !b.empty()) {
        options.binding = b;
      } else {
        throw UsageError("pass --binding, --language or --context");
      }
      auto sb = open_sandbox();
      sandbox::cli::LiveOutput live(std::cout, std::cerr);
      options.on_stdout_text = live.on_stdout();
      options.on_stderr_text = live.on_stderr();
      const auto result = sb.run_code(code, options);
      sandbox::cli::print_result(live.rest(result), std::cout, std::cerr);
      return result.outcome.error ? kGuestError : 0;
    }

    if (*repl) {
      sandbox::cli::ReplOptions options;
      std::string what;
      if (!context.empty()) {
        options.context = context;
        what = "context " + context;
      } else {
        options.binding = resolved_binding();
        if (options.binding.empty()) throw UsageError("pass --language, --binding or --context");
        what = "binding " + options.binding;
      }
      auto sb = open_sandbox();
      options.banner = "sandbox repl: sandbox " + sb.id() + ", " + what + " on " + g.server +
                       "\nA line ending with \\ or inside open brackets continues; a line ending "
                       "with ':' opens a block ended by an empty line. .exit or Ctrl-D quits.";
      // Line editing and history on a terminal only (piped input is read as it is).
      std::optional<sandbox::cli::LineEditor> editor;
      if (isatty(STDIN_FILENO)) {
        editor.emplace(argv[0], sandbox::cli::default_history_path());
        options.read_line = [&](const std::string& prompt) { return editor->read_line(prompt); };
      }
      return sandbox::cli::run_repl(sb, options, std::cin, std::cout, std::cerr);
    }

    if (*files) {
      auto sb = open_sandbox();
      if (*ls) {
        const auto listing = sb.list_files(path.empty() ? "/workspace" : path,
                                           {.recursive = recursive, .include_hidden = all});
        for (const auto& f : listing.files) {
          std::cout << f.mode << " " << size_text(f.size) << " " << f.modified_at << " "
                    << f.relative_path << (f.is_directory() ? "/" : "") << "\n";
        }
      } else if (*cat) {
        const auto bytes = sb.read_file_bytes(path);
        std::cout.write(reinterpret_cast<const char*>(bytes.data()),
                        static_cast<std::streamsize>(bytes.size()));
      } else if (*put) {
        std::string data;
        if (!content.empty() && !local.empty())
          throw UsageError("pass LOCAL or --content, not both");
        if (!content.empty()) {
          data = content;
        } else if (local == "-" || local.empty()) {
          data = read_all(std::cin);
        } else {
          data = read_file(local);
        }
        const auto r = sb.write_file_bytes(
            path, std::span(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()));
        std::cout << "wrote " << r.path << " (" << data.size() << " bytes)\n";
      } else if (*rm) {
        const auto r = sb.delete_file(path, recursive, force);
        std::cout << "removed " << r.path << "\n";
      } else if (*mkdir) {
        const auto r = sb.mkdir(path, recursive);
        std::cout << "created " << r.path << "\n";
      }
      return 0;
    }

    if (*contexts) {
      auto sb = open_sandbox();
      if (*contexts_ls) {
        for (const auto& c : sb.list_code_contexts()) {
          std::cout << c.id << "  " << c.binding << "  " << c.language << "  " << c.cwd
                    << "  created " << c.created_at << "  last used " << c.last_used << "\n";
        }
      } else if (*contexts_new) {
        sandbox::CreateContextOptions options;
        options.binding = resolved_binding();
        if (options.binding.empty()) throw UsageError("pass --binding or --language");
        if (!cwd.empty()) options.cwd = cwd;
        for (const auto& [k, v] : env_from(env, {})) {
          if (v) options.env_vars[k] = *v;  // always set: no names to unset here
        }
        const auto c = sb.create_code_context(options);
        std::cout << c.id << "\n";
      } else if (*contexts_rm) {
        sb.delete_code_context(context);
        std::cout << "deleted " << context << "\n";
      }
      return 0;
    }

    if (*info) {
      if (!url.empty() == !sandbox_id.empty()) throw UsageError("pass --url URL or --sandbox ID");
      if (!url.empty()) {
        const auto i = sandbox::probe_runtime(url, g.api_key);
        std::cout << "language: " << i.language << "\nengine:   " << i.engine
                  << "\ncontexts: " << (i.contexts ? "yes" : "no") << "\nprotocol: " << i.protocol
                  << "\n";
        return 0;
      }
      auto sb = open_sandbox();
      print_info(sb.get_info());
      return 0;
    }

    if (*languages) {
      for (const auto& l : sandbox::list_languages(g.server, g.client())) {
        std::cout << std::left << std::setw(12) << l.id << std::setw(12) << l.binding
                  << std::setw(12) << (l.available ? l.language : "(unreachable)")
                  << (l.contexts ? "contexts  " : "stateless ") << l.engine
                  << (l.remote ? "  (remote)" : "") << "\n";
      }
      return 0;
    }
  } catch (const sandbox::SandboxError& e) {
    return sandbox::cli::report_failure(e, std::cerr);
  } catch (const UsageError& e) {
    std::cerr << "sandbox: " << e.what() << "\n";
    return kRequestFailed;
  } catch (const std::invalid_argument& e) {  // an invalid sandbox id
    std::cerr << "sandbox: " << e.what() << "\n";
    return kRequestFailed;
  }
  return 0;
}

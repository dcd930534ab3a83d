#include "mcp/mcp_tools.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <sandbox/client.h>
#include <sandbox/protocol.h>

#include "base/utf8.h"

namespace sandbox::mcp {
namespace {

namespace json = boost::json;

// A failure the agent should read (the call's result has isError: true).
class ToolFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The longest language name a tool accepts (it becomes part of a request path).
constexpr std::size_t kMaxLanguageNameBytes = 64;

class Sandboxd;
using Handler = std::function<json::object(Sandboxd&, const json::object&)>;

struct Tool {
  std::string_view name;
  std::string_view title;
  std::string_view description;
  std::string_view schema;  // the inputSchema, as JSON text
  Handler call;
};

// ---- Arguments (already checked against the schema by check_arguments) ------------------------

std::string string_arg(const json::object& args, std::string_view key) {
  return std::string(args.at(key).as_string());
}

std::optional<std::string> optional_string_arg(const json::object& args, std::string_view key) {
  const json::value* v = args.if_contains(key);
  if (!v) return std::nullopt;
  return std::string(v->as_string());
}

bool bool_arg(const json::object& args, std::string_view key) {
  const json::value* v = args.if_contains(key);
  return v && v->as_bool();
}

// `env_vars`, as sandboxd's envVars: values are strings (or null to unset, when `allow_null`).
std::optional<json::object> env_arg(const json::object& args, bool allow_null) {
  const json::value* v = args.if_contains("env_vars");
  if (!v) return std::nullopt;
  for (const auto& [k, value] : v->as_object()) {
    if (!value.is_string() && !(allow_null && value.is_null())) {
      throw InvalidParams("env_vars." + std::string(k) + " must be a string" +
                          (allow_null ? " or null" : ""));
    }
  }
  return v->as_object();
}

bool has_type(const json::value& v, std::string_view type) {
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_bool();
  if (type == "object") return v.is_object();
  return false;
}

// The subset of JSON Schema the tools' schemas use: properties with a type (and maybe an enum),
// required, additionalProperties: false.
void check_arguments(const Tool& tool, const json::object& schema, const json::object& args) {
  const json::object& properties = schema.at("properties").as_object();
  for (const auto& [key, value] : args) {
    const json::value* property = properties.if_contains(key);
    if (!property) {
      throw InvalidParams("Unknown argument '" + std::string(key) + "' for tool " +
                          std::string(tool.name));
    }
    const std::string_view type = property->at("type").as_string();
    if (!has_type(value, type)) {
      throw InvalidParams("Argument '" + std::string(key) + "' of tool " + std::string(tool.name) +
                          " must be a " + std::string(type));
    }
    if (const json::value* choices = property->as_object().if_contains("enum")) {
      const auto& list = choices->as_array();
      if (std::find(list.begin(), list.end(), value) == list.end()) {
        throw InvalidParams("Argument '" + std::string(key) + "' of tool " +
                            std::string(tool.name) + " must be one of " + json::serialize(list));
      }
    }
  }
  if (const json::value* required = schema.if_contains("required")) {
    for (const auto& key : required->as_array()) {
      if (!args.contains(key.as_string())) {
        throw InvalidParams("Missing argument '" + std::string(key.as_string()) + "' for tool " +
                            std::string(tool.name));
      }
    }
  }
}

// ---- sandboxd, through the C++ client ----------------------------------------------------------

// The C++ client over the backend: the client builds every request and decodes every answer
// (its checks and errors are the tools'). The body of the last answer is kept, since a tool's
// structuredContent is sandboxd's answer as it came (docs/mcp.md#tools).
class Sandboxd {
 public:
  explicit Sandboxd(const Backend& backend)
      : transport_([this, &backend](const ClientRequest& r) {
          HttpResponse answer = backend(r.method, r.path, r.body);
          last_body_ = answer.body;
          return answer;
        }) {}
  Sandboxd(const Sandboxd&) = delete;
  Sandboxd& operator=(const Sandboxd&) = delete;

  const ClientTransport& transport() const { return transport_; }
  // The client of sandbox `id` (the id is checked before anything is sent).
  SandboxClient sandbox(const std::string& id) const { return get_sandbox(transport_, id); }

  // The last answer, a JSON object (the client has accepted it already).
  json::object last_answer() const {
    json::error_code ec;
    json::parse_options options;
    options.max_depth = kMaxMcpJsonDepth;
    json::value parsed = json::parse(last_body_, ec, {}, options);
    if (ec || !parsed.is_object()) throw ToolFailure("sandboxd's answer is not a JSON object");
    return std::move(parsed.as_object());
  }

 private:
  std::string last_body_;
  ClientTransport transport_;
};

// The text of a SandboxError for the agent: sandboxd's code, status and message, or the
// message alone when sandboxd was not reached or did not answer with the protocol.
std::string error_text(const SandboxError& e) {
  if (e.http_status() == 0) return e.what();
  return std::string(error_code_name(e.code())) + " (HTTP " + std::to_string(e.http_status()) +
         "): " + e.what();
}

// The context id argument: context ids are interpreter-key shaped, and anything else never
// names one (nor is it sent).
std::string context_arg(const json::object& args) {
  std::string id = string_arg(args, "context_id");
  if (!valid_interpreter_key(id)) {
    throw ToolFailure("CONTEXT_NOT_FOUND: no context '" + std::string(utf8_prefix(id, 128)) + "'");
  }
  return id;
}

// The binding that runs `language` (GET /languages): by id, binding name or language.
LanguageInfo resolve_language(const Sandboxd& sandboxd, const std::string& language) {
  if (language.empty() || language.size() > kMaxLanguageNameBytes) {
    throw ToolFailure("Unsupported language: " +
                      std::string(utf8_prefix(language, kMaxLanguageNameBytes)));
  }
  const std::string wanted = normalize_language(language);
  std::string available;
  for (LanguageInfo& entry : list_languages(sandboxd.transport())) {
    if (entry.id.empty() || entry.binding.empty() || !valid_interpreter_key(entry.id)) continue;
    if (entry.id == wanted || entry.binding == language || entry.language == wanted) {
      return std::move(entry);
    }
    available += (available.empty() ? "" : ", ") + entry.id;
  }
  throw ToolFailure("No binding runs '" + language + "' (available: " + available + ")");
}

// ---- Results -----------------------------------------------------------------------------------

json::object text_result(std::string text, bool is_error) {
  return {{"content", json::array{json::object{{"type", "text"}, {"text", std::move(text)}}}},
          {"isError", is_error}};
}

// A structured result, with its serialized JSON as the text (the spec's advice for clients
// without structuredContent), or `text` when given.
json::object structured_result(json::object structured, std::optional<std::string> text = {}) {
  json::object result = text_result(text ? *text : json::serialize(structured), false);
  result["structuredContent"] = std::move(structured);
  return result;
}

std::string render_execution(const ExecutionResult& r, const json::object& answer) {
  std::string text;
  const auto section = [&](std::string_view label, const std::vector<std::string>& lines) {
    if (lines.empty()) return;
    text += std::string(label) + ":\n";
    for (const auto& l : lines) text += l + "\n";
  };
  section("stdout", r.outcome.logs.stdout_lines);
  section("stderr", r.outcome.logs.stderr_lines);
  for (const auto& entry : r.outcome.results) {
    text +=
        "result: " + (entry.text ? *entry.text : json::serialize(entry.json.value_or(nullptr))) +
        "\n";
  }
  if (const auto& e = r.outcome.error) {
    const std::string headline = e->name + ": " + e->message;
    text += "error: " + headline + "\n";
    for (std::size_t i = 0; i < e->traceback.size(); ++i) {
      if (i == 0 && e->traceback[0] == headline) continue;  // engines often repeat it first
      text += e->traceback[i] + "\n";
    }
  }
  if (const json::value* context = answer.if_contains("context"); context && context->is_object()) {
    if (const json::value* id = context->as_object().if_contains("id"); id && id->is_string()) {
      text += "context: " + std::string(id->as_string()) + "\n";
    }
  }
  if (text.empty()) text = "(no output and no result)\n";
  return text;
}

// ---- The tools ---------------------------------------------------------------------------------

json::object list_languages_tool(Sandboxd& sandboxd, const json::object&) {
  static_cast<void>(list_languages(sandboxd.transport()));
  return structured_result(sandboxd.last_answer());
}

json::object run_code(Sandboxd& sandboxd, const json::object& args) {
  const std::optional<std::string> sandbox_id = optional_string_arg(args, "sandbox_id");
  const std::optional<std::string> context_id = optional_string_arg(args, "context_id");
  const std::optional<std::string> language = optional_string_arg(args, "language");
  if (context_id && !sandbox_id) throw InvalidParams("context_id needs sandbox_id");
  if (!context_id && !language) throw InvalidParams("run_code needs language (or context_id)");
  const std::string code = string_arg(args, "code");
  std::map<std::string, std::optional<std::string>> env;
  if (const auto given = env_arg(args, sandbox_id.has_value())) {
    for (const auto& [k, v] : *given) {
      env[std::string(k)] =
          v.is_null() ? std::nullopt : std::optional<std::string>(std::string(v.as_string()));
    }
  }
  ExecutionResult result;
  if (!sandbox_id) {
    RunOptions options;
    options.env_vars = std::move(env);
    result = run_code_on_server(sandboxd.transport(), resolve_language(sandboxd, *language).id,
                                code, options);
  } else {
    SandboxClient sandbox = sandboxd.sandbox(*sandbox_id);
    SandboxRunOptions options;
    options.env_vars = std::move(env);
    if (context_id) {
      options.context = *context_id;
    } else {
      options.binding = resolve_language(sandboxd, *language).binding;
    }
    result = sandbox.run_code(code, options);
  }
  const json::object answer = sandboxd.last_answer();
  json::object out = structured_result(answer, render_execution(result, answer));
  out["isError"] = result.outcome.error.has_value();
  return out;
}

json::object create_context(Sandboxd& sandboxd, const json::object& args) {
  SandboxClient sandbox = sandboxd.sandbox(string_arg(args, "sandbox_id"));
  CreateContextOptions options;
  options.binding = resolve_language(sandboxd, string_arg(args, "language")).binding;
  options.cwd = optional_string_arg(args, "cwd");
  if (const auto env = env_arg(args, false)) {
    for (const auto& [k, v] : *env) options.env_vars[std::string(k)] = std::string(v.as_string());
  }
  static_cast<void>(sandbox.create_code_context(options));
  return structured_result(sandboxd.last_answer());
}

json::object list_contexts(Sandboxd& sandboxd, const json::object& args) {
  static_cast<void>(sandboxd.sandbox(string_arg(args, "sandbox_id")).list_code_contexts());
  return structured_result(sandboxd.last_answer());
}

json::object delete_context(Sandboxd& sandboxd, const json::object& args) {
  SandboxClient sandbox = sandboxd.sandbox(string_arg(args, "sandbox_id"));
  sandbox.delete_code_context(context_arg(args));
  return structured_result(sandboxd.last_answer());
}

json::object read_file(Sandboxd& sandboxd, const json::object& args) {
  SandboxClient sandbox = sandboxd.sandbox(string_arg(args, "sandbox_id"));
  const ReadFileResult read = sandbox.read_file(
      string_arg(args, "path"), optional_string_arg(args, "encoding").value_or("utf-8"));
  std::string text = read.encoding == "base64" ? "(base64)\n" + read.content : read.content;
  return structured_result(sandboxd.last_answer(), std::move(text));
}

json::object write_file(Sandboxd& sandboxd, const json::object& args) {
  SandboxClient sandbox = sandboxd.sandbox(string_arg(args, "sandbox_id"));
  const std::string path = string_arg(args, "path");
  if (bool_arg(args, "make_parents")) {
    if (const auto slash = path.find_last_of('/'); slash != std::string::npos && slash > 0) {
      static_cast<void>(sandbox.mkdir(path.substr(0, slash), /*recursive=*/true));
    }
  }
  static_cast<void>(sandbox.write_file(path, string_arg(args, "content"),
                                       optional_string_arg(args, "encoding").value_or("utf-8")));
  return structured_result(sandboxd.last_answer());
}

json::object list_files(Sandboxd& sandboxd, const json::object& args) {
  SandboxClient sandbox = sandboxd.sandbox(string_arg(args, "sandbox_id"));
  ListFilesOptions options;
  options.recursive = bool_arg(args, "recursive");
  options.include_hidden = bool_arg(args, "include_hidden");
  static_cast<void>(
      sandbox.list_files(optional_string_arg(args, "path").value_or("/workspace"), options));
  return structured_result(sandboxd.last_answer());
}

json::object delete_file(Sandboxd& sandboxd, const json::object& args) {
  SandboxClient sandbox = sandboxd.sandbox(string_arg(args, "sandbox_id"));
  static_cast<void>(sandbox.delete_file(string_arg(args, "path"), bool_arg(args, "recursive")));
  return structured_result(sandboxd.last_answer());
}

// The schemas' shared properties.
#define SANDBOX_MCP_SANDBOX_ID                                                                   \
  R"("sandbox_id": {"type": "string", "description": "The sandbox: 1-63 characters of A-Z a-z )" \
  R"(0-9 . _ - (not starting or ending with -). Created on first use; it keeps a /workspace, )"  \
  R"(env vars and code contexts."})"
#define SANDBOX_MCP_ENV_VARS                                                                 \
  R"("env_vars": {"type": "object", "additionalProperties": {"type": ["string", "null"]}, )" \
  R"("description": "Environment variables for this call, NAME: value (null unsets one)."})"
#define SANDBOX_MCP_PATH(what)                          \
  R"("path": {"type": "string", "description": ")" what \
  R"(: absolute under /workspace or relative to it."})"

const Tool kTools[] = {
    {"list_languages", "List languages",
     "Lists the languages this server runs (id, binding, language, engine, whether it keeps "
     "state in code contexts, and its limits). Use an id as run_code's language.",
     R"({"type": "object", "properties": {}, "additionalProperties": false})", list_languages_tool},
    {"run_code", "Run code",
     "Runs code and returns its stdout, stderr, result (the value of the last expression) and "
     "error. Without sandbox_id the run is stateless. With sandbox_id it runs in that sandbox "
     "(files under /workspace are shared with the file tools): in the language's default code "
     "context, whose variables, functions and imports persist across calls, or in the context "
     "context_id names. A guest error (an exception, a limit) comes back as isError with its "
     "name, message and traceback.",
     R"({"type": "object", "properties": {
          "language": {"type": "string", "description": "A language id from list_languages, e.g. python, javascript, lua. Not needed with context_id."},
          "code": {"type": "string", "description": "The program; the value of its last expression is the result."},
          )" SANDBOX_MCP_SANDBOX_ID R"(,
          "context_id": {"type": "string", "description": "Run in this code context (from create_context or list_contexts) of the sandbox."},
          )" SANDBOX_MCP_ENV_VARS R"(},
        "required": ["code"], "additionalProperties": false})",
     run_code},
    {"create_context", "Create a code context",
     "Creates a code context in a sandbox: an interpreter whose state (variables, functions, "
     "imports, working directory) persists across run_code calls that name it, and across "
     "server restarts. A sandbox holds at most 8.",
     R"({"type": "object", "properties": {
          )" SANDBOX_MCP_SANDBOX_ID R"(,
          "language": {"type": "string", "description": "A language id from list_languages whose engine supports contexts."},
          "cwd": {"type": "string", "description": "Working directory (default /workspace)."},
          "env_vars": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Environment variables of the context, NAME: value."}},
        "required": ["sandbox_id", "language"], "additionalProperties": false})",
     create_context},
    {"list_contexts", "List code contexts",
     "Lists a sandbox's code contexts (id, language, cwd), oldest first.",
     R"({"type": "object", "properties": {)" SANDBOX_MCP_SANDBOX_ID R"(},
        "required": ["sandbox_id"], "additionalProperties": false})",
     list_contexts},
    {"delete_context", "Delete a code context",
     "Deletes a code context of a sandbox and its interpreter state.",
     R"({"type": "object", "properties": {
          )" SANDBOX_MCP_SANDBOX_ID R"(,
          "context_id": {"type": "string", "description": "The context to delete."}},
        "required": ["sandbox_id", "context_id"], "additionalProperties": false})",
     delete_context},
    {"read_file", "Read a file",
     "Reads a file of a sandbox's /workspace. The text content is the file itself (base64 when "
     "asked or when the file is binary).",
     R"({"type": "object", "properties": {
          )" SANDBOX_MCP_SANDBOX_ID R"(,
          )" SANDBOX_MCP_PATH("The file") R"(,
          "encoding": {"type": "string", "enum": ["utf-8", "base64"], "description": "utf-8 (default) or base64."}},
        "required": ["sandbox_id", "path"], "additionalProperties": false})",
     read_file},
    {"write_file", "Write a file",
     "Writes (creates or replaces) a file in a sandbox's /workspace, where code run with that "
     "sandbox_id can read it.",
     R"({"type": "object", "properties": {
          )" SANDBOX_MCP_SANDBOX_ID R"(,
          )" SANDBOX_MCP_PATH("The file") R"(,
          "content": {"type": "string", "description": "The content: text, or base64 with encoding base64."},
          "encoding": {"type": "string", "enum": ["utf-8", "base64"], "description": "utf-8 (default) or base64."},
          "make_parents": {"type": "boolean", "description": "Create missing parent directories first (default false)."}},
        "required": ["sandbox_id", "path", "content"], "additionalProperties": false})",
     write_file},
    {"list_files", "List files",
     "Lists a directory of a sandbox's /workspace: name, paths, type, size, mode, modification "
     "time of each entry.",
     R"({"type": "object", "properties": {
          )" SANDBOX_MCP_SANDBOX_ID R"(,
          )" SANDBOX_MCP_PATH("The directory (default /workspace)") R"(,
          "recursive": {"type": "boolean", "description": "Descend into subdirectories."},
          "include_hidden": {"type": "boolean", "description": "Include entries whose name starts with a dot."}},
        "required": ["sandbox_id"], "additionalProperties": false})",
     list_files},
    {"delete_file", "Delete a file",
     "Deletes a file (or, with recursive, a directory and its contents) of a sandbox's "
     "/workspace.",
     R"({"type": "object", "properties": {
          )" SANDBOX_MCP_SANDBOX_ID R"(,
          )" SANDBOX_MCP_PATH("The file or directory") R"(,
          "recursive": {"type": "boolean", "description": "Delete a directory and everything in it."}},
        "required": ["sandbox_id", "path"], "additionalProperties": false})",
     delete_file},
};

#undef SANDBOX_MCP_SANDBOX_ID
#undef SANDBOX_MCP_ENV_VARS
#undef SANDBOX_MCP_PATH

// The parsed schemas, in kTools order.
const std::vector<json::object>& schemas() {
  static const std::vector<json::object> parsed = [] {
    std::vector<json::object> out;
    for (const Tool& t : kTools) out.push_back(json::parse(t.schema).as_object());
    return out;
  }();
  return parsed;
}

}  // namespace

const json::array& tool_definitions() {
  static const json::array definitions = [] {
    json::array out;
    for (std::size_t i = 0; i < std::size(kTools); ++i) {
      out.push_back(json::object{{"name", kTools[i].name},
                                 {"title", kTools[i].title},
                                 {"description", kTools[i].description},
                                 {"inputSchema", schemas()[i]}});
    }
    return out;
  }();
  return definitions;
}

json::object call_tool(const Backend& backend, std::string_view name,
                       const json::object& arguments) {
  const auto it = std::find_if(std::begin(kTools), std::end(kTools),
                               [&](const Tool& t) { return t.name == name; });
  if (it == std::end(kTools)) {
    throw InvalidParams("Unknown tool: " + std::string(utf8_prefix(name, kMaxLanguageNameBytes)));
  }
  check_arguments(*it, schemas()[static_cast<std::size_t>(it - std::begin(kTools))], arguments);
  try {
    Sandboxd sandboxd(backend);
    return it->call(sandboxd, arguments);
  } catch (const InvalidParams&) {
    throw;
  } catch (const SandboxError& e) {  // sandboxd refused, or was not reached
    return text_result(sanitize_utf8(error_text(e)), true);
  } catch (const std::exception& e) {  // ToolFailure, an invalid id, an answer the client refused
    return text_result(sanitize_utf8(e.what()), true);
  }
}

}  // namespace sandbox::mcp

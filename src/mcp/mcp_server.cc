#include "mcp/mcp_server.h"

#include <algorithm>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <sandbox/version.h>

#include "base/utf8.h"
#include "mcp/mcp_tools.h"

namespace sandbox::mcp {
namespace {

namespace json = boost::json;

// How much of a client's method name an error message repeats.
constexpr std::size_t kQuotedMethodBytes = 128;

constexpr std::string_view kInstructions =
    "Runs code in isolated sandboxes (WebAssembly interpreters). Use list_languages to see the "
    "languages, run_code to run a program (stateless, or with a sandbox_id to keep state in a "
    "code context and share files under /workspace), and the file tools to move data in and out "
    "of a sandbox.";

std::string error_message(const json::value& id, int code, std::string message) {
  return json::serialize(
      json::object{{"jsonrpc", "2.0"},
                   {"id", id},
                   {"error", json::object{{"code", code}, {"message", std::move(message)}}}});
}

std::string result_message(const json::value& id, json::object result) {
  return json::serialize(
      json::object{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

// JSON-RPC ids MCP allows: a string or an integer.
bool valid_id(const json::value& id) { return id.is_string() || id.is_int64() || id.is_uint64(); }

}  // namespace

bool supported_protocol_version(std::string_view version) {
  return version == kProtocolVersion ||
         std::find(std::begin(kOlderProtocolVersions), std::end(kOlderProtocolVersions), version) !=
             std::end(kOlderProtocolVersions);
}

McpServer::McpServer(Backend backend) : backend_(std::move(backend)) {}

McpReply McpServer::handle(std::string_view message) const {
  const auto malformed = [](int code, std::string text) {
    return McpReply{error_message(nullptr, code, std::move(text)), true};
  };
  if (message.size() > kMaxMcpMessageBytes) {
    return malformed(kInvalidRequest,
                     "Message larger than " + std::to_string(kMaxMcpMessageBytes) + " bytes");
  }
  json::error_code ec;
  json::parse_options options;
  options.max_depth = kMaxMcpJsonDepth;
  const json::value parsed = json::parse(message, ec, {}, options);
  if (ec) return malformed(kParseError, "Parse error: " + ec.message());
  if (parsed.is_array()) {
    return malformed(kInvalidRequest, "Batches are not supported (MCP 2025-06-18)");
  }
  if (!parsed.is_object()) return malformed(kInvalidRequest, "A message is a JSON object");
  const json::object& m = parsed.as_object();
  const json::value* jsonrpc = m.if_contains("jsonrpc");
  if (!jsonrpc || !jsonrpc->is_string() || jsonrpc->as_string() != "2.0") {
    return malformed(kInvalidRequest, "jsonrpc must be \"2.0\"");
  }
  const json::value* id = m.if_contains("id");
  if (id && !valid_id(*id)) {
    return malformed(kInvalidRequest, "id must be a string or an integer");
  }
  const json::value* method = m.if_contains("method");
  if (!method) {
    // A response to a request of ours (we send none): accepted and ignored.
    if (id && (m.contains("result") || m.contains("error"))) return {};
    return malformed(kInvalidRequest, "A request needs a method");
  }
  if (!method->is_string()) return malformed(kInvalidRequest, "method must be a string");
  // Notifications (initialized, cancelled, ...) need no answer and change nothing here.
  if (!id) return {};

  const std::string_view name = method->as_string();
  const json::value* params_value = m.if_contains("params");
  if (params_value && !params_value->is_object()) {
    return {error_message(*id, kInvalidParams, "params must be an object"), false};
  }
  static const json::object kNoParams;
  const json::object& params = params_value ? params_value->as_object() : kNoParams;

  if (name == "initialize") {
    const json::value* asked = params.if_contains("protocolVersion");
    std::string version(kProtocolVersion);
    if (asked && asked->is_string() && supported_protocol_version(asked->as_string())) {
      version = asked->as_string();
    }
    return {result_message(*id, {{"protocolVersion", version},
                                 {"capabilities",
                                  json::object{{"tools", json::object{{"listChanged", false}}}}},
                                 {"serverInfo", json::object{{"name", "sandboxd"},
                                                             {"title", "sandbox-workers"},
                                                             {"version", kVersion}}},
                                 {"instructions", kInstructions}}),
            false};
  }
  if (name == "ping") return {result_message(*id, {}), false};
  if (name == "tools/list") return {result_message(*id, {{"tools", tool_definitions()}}), false};
  if (name == "tools/call") {
    const json::value* tool = params.if_contains("name");
    if (!tool || !tool->is_string()) {
      return {error_message(*id, kInvalidParams, "params.name (the tool) must be a string"), false};
    }
    const json::value* arguments = params.if_contains("arguments");
    if (arguments && !arguments->is_object()) {
      return {error_message(*id, kInvalidParams, "params.arguments must be an object"), false};
    }
    static const json::object kNoArguments;
    try {
      return {result_message(*id, call_tool(backend_, tool->as_string(),
                                            arguments ? arguments->as_object() : kNoArguments)),
              false};
    } catch (const InvalidParams& e) {
      return {error_message(*id, kInvalidParams, e.what()), false};
    } catch (const std::exception& e) {
      return {error_message(*id, kInternalError, sanitize_utf8(e.what())), false};
    }
  }
  return {error_message(*id, kMethodNotFound,
                        "Method not found: " + std::string(utf8_prefix(name, kQuotedMethodBytes))),
          false};
}

}  // namespace sandbox::mcp

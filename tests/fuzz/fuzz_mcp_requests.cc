// Fuzz target: the MCP dispatcher (src/mcp/mcp_server.cc) and its tools (mcp_tools.cc), which
// read hostile JSON-RPC messages from /mcp and `sandbox mcp`, and answers from a sandboxd that
// `sandbox mcp` reaches over the network. Input: one byte choosing the backend's HTTP status,
// the message, kRecordSeparator, then the body every backend request is answered with.
//
// Checked beyond "no crash": every reply is one JSON-RPC 2.0 object with exactly one of result
// and error; a malformed message's error has a null id; a tools/call result has text content and
// an isError flag; a tool call makes at most a few backend requests.
#include <cstddef>
#include <cstdint>
#include <string>

#include <boost/json/parse.hpp>

#include "fuzz_assert.h"
#include "fuzz_input.h"
#include "mcp/mcp_server.h"

namespace {

namespace json = boost::json;

// write_file with make_parents: mkdir then write; run_code: /languages then execute.
constexpr int kMaxBackendCalls = 2;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sandbox::fuzz::FuzzInput in(data, size);
  constexpr int kStatuses[] = {200, 201, 400, 404, 413, 500, 502, 204};
  const int status = kStatuses[in.u8() % std::size(kStatuses)];
  const std::string message(in.record());
  const std::string answer(in.rest());
  int calls = 0;
  const sandbox::mcp::McpServer server(
      [&](const std::string&, const std::string& path, const std::string&) {
        ++calls;
        FUZZ_CHECK(path.starts_with("/"));
        FUZZ_CHECK(path.find_first_of(" \r\n?#") == std::string::npos);
        sandbox::HttpResponse r;
        r.status = status;
        r.body = answer;
        return r;
      });
  const sandbox::mcp::McpReply reply = server.handle(message);
  FUZZ_CHECK(calls <= kMaxBackendCalls);
  if (!reply.body) {
    FUZZ_CHECK(!reply.malformed);
    return 0;
  }
  const json::value v = json::parse(*reply.body);
  FUZZ_CHECK(v.is_object());
  const json::object& o = v.as_object();
  FUZZ_CHECK(o.at("jsonrpc") == "2.0");
  FUZZ_CHECK(o.contains("result") != o.contains("error"));
  if (reply.malformed) FUZZ_CHECK(o.contains("error") && o.at("id").is_null());
  if (const json::value* result = o.if_contains("result");
      result && result->is_object() && result->as_object().contains("content")) {
    FUZZ_CHECK(result->at("isError").is_bool());
    FUZZ_CHECK(result->at("content").at(0).at("type") == "text");
  }
  return 0;
}

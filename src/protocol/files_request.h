// Decoder of the POST /sandboxes/{id}/files body (docs/sandbox-api.md#files-api):
// {op, path, newPath?, content?, encoding?, recursive?, force?, includeHidden?}.
//
// Field rules, checked in this order; every refusal is ApiError kBadRequest (400,
// docs/errors.md) with exactly this message:
//   op        a string, one of read write mkdir delete rename move list exists: "Unknown op"
//   path      a non-empty string: "path is required" (normalized later, by the op)
//   newPath   rename and move only, a non-empty string: "newPath is required for <op>";
//             ignored for the other ops
//   encoding  absent, or "utf-8" / "base64": "encoding must be utf-8 or base64"
//   content   absent or null reads as "", else a string: "content must be a string"
//   recursive, force, includeHidden
//             never refused: JavaScript truthiness (absent, null, false, 0, NaN, "" are false;
//             any other value, arrays and objects included, is true)
// Unknown fields are ignored.
//
// Pure functions, safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <sandbox/workspace.h>

namespace sandbox {

struct FilesRequest {
  std::string op;  // read write mkdir delete rename move list exists
  std::string path;
  std::optional<std::string> new_path;
  std::string content;  // write only; "" when absent
  std::optional<Encoding> encoding;
  bool recursive = false;
  bool force = false;
  bool include_hidden = false;
};

[[nodiscard]] FilesRequest decode_files_request(const boost::json::object& body);
// The raw body: parse_json_object's refusals (protocol/execute_request.h), then the rules above.
[[nodiscard]] FilesRequest decode_files_request(std::string_view body);

// JavaScript truthiness of an optional JSON value, the rule of the boolean flags above.
bool json_truthy(const boost::json::value* v);

}  // namespace sandbox

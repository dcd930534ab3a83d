#include "protocol/files_request.h"

#include <array>

#include <sandbox/protocol.h>

#include "protocol/execute_request.h"

namespace sandbox {
namespace {

constexpr std::array<std::string_view, 8> kOps = {"read",   "write", "mkdir", "delete",
                                                  "rename", "move",  "list",  "exists"};

}  // namespace

bool json_truthy(const boost::json::value* v) {
  if (!v) return false;
  switch (v->kind()) {
    case boost::json::kind::null:
      return false;
    case boost::json::kind::bool_:
      return v->get_bool();
    case boost::json::kind::int64:
      return v->get_int64() != 0;
    case boost::json::kind::uint64:
      return v->get_uint64() != 0;
    case boost::json::kind::double_:
      return v->get_double() != 0 && v->get_double() == v->get_double();
    case boost::json::kind::string:
      return !v->get_string().empty();
    default:
      return true;
  }
}

FilesRequest decode_files_request(const boost::json::object& body) {
  FilesRequest r;
  const auto* op = body.if_contains("op");
  bool known = false;
  if (op && op->is_string()) {
    for (const auto k : kOps) known = known || op->get_string() == k;
  }
  if (!known) throw ApiError(ErrorKind::kBadRequest, "Unknown op");
  r.op = op->get_string();
  const auto* path = body.if_contains("path");
  if (!path || !path->is_string() || path->get_string().empty()) {
    throw ApiError(ErrorKind::kBadRequest, "path is required");
  }
  r.path = path->get_string();
  if (r.op == "rename" || r.op == "move") {
    const auto* np = body.if_contains("newPath");
    if (!np || !np->is_string() || np->get_string().empty()) {
      throw ApiError(ErrorKind::kBadRequest, "newPath is required for " + r.op);
    }
    r.new_path = std::string(np->get_string());
  }
  if (const auto* enc = body.if_contains("encoding")) {
    if (enc->is_string() && enc->get_string() == "utf-8") {
      r.encoding = Encoding::kUtf8;
    } else if (enc->is_string() && enc->get_string() == "base64") {
      r.encoding = Encoding::kBase64;
    } else {
      throw ApiError(ErrorKind::kBadRequest, "encoding must be utf-8 or base64");
    }
  }
  if (const auto* content = body.if_contains("content"); content && !content->is_null()) {
    if (!content->is_string()) throw ApiError(ErrorKind::kBadRequest, "content must be a string");
    r.content = content->get_string();
  }
  r.recursive = json_truthy(body.if_contains("recursive"));
  r.force = json_truthy(body.if_contains("force"));
  r.include_hidden = json_truthy(body.if_contains("includeHidden"));
  return r;
}

FilesRequest decode_files_request(std::string_view body) {
  return decode_files_request(parse_json_object(body));
}

}  // namespace sandbox

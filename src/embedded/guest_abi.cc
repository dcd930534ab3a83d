#include "embedded/guest_abi.h"

#include <stdexcept>

#include <boost/json.hpp>

#include <sandbox/protocol.h>

#include "base/utf8.h"

namespace sandbox {
namespace embedded {
namespace {

void put_record(std::vector<std::uint8_t>& out, char tag, std::string_view bytes) {
  const auto len = static_cast<std::uint32_t>(bytes.size());
  out.push_back(static_cast<std::uint8_t>(tag));
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(len >> (8 * i)));
  out.insert(out.end(), bytes.begin(), bytes.end());
}

[[noreturn]] void malformed(const std::string& why) {
  throw std::runtime_error("Malformed interpreter response: " + why);
}

std::string string_field(const boost::json::object& o, std::string_view key, bool required) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) {
    if (required) malformed(std::string("missing \"") + std::string(key) + "\"");
    return {};
  }
  if (!v->is_string()) malformed(std::string("\"") + std::string(key) + "\" is not a string");
  return std::string(v->get_string());
}

ExecutionError parse_error(const boost::json::value& v) {
  if (!v.is_object()) malformed("\"error\" is not an object");
  const auto& o = v.get_object();
  ExecutionError e;
  e.name = string_field(o, "name", false);
  if (e.name.empty()) e.name = "Error";
  e.message = string_field(o, "message", false);
  if (const auto* tb = o.if_contains("traceback"); tb != nullptr && !tb->is_null()) {
    if (!tb->is_array()) malformed("\"traceback\" is not an array");
    for (const auto& line : tb->get_array()) {
      if (!line.is_string()) malformed("\"traceback\" holds a non-string");
      e.traceback.emplace_back(line.get_string());
    }
  }
  if (const auto* ln = o.if_contains("lineNumber"); ln != nullptr && !ln->is_null()) {
    if (!ln->is_int64() && !ln->is_uint64()) malformed("\"lineNumber\" is not an integer");
    e.line_number = ln->to_number<std::int64_t>();
  }
  return e;
}

}  // namespace

std::vector<std::uint8_t> encode_request(std::string_view code, std::string_view cwd,
                                         const std::map<std::string, std::string>& env) {
  std::vector<std::uint8_t> out;
  out.reserve(code.size() + cwd.size() + 16);
  put_record(out, 'c', code);
  if (!cwd.empty()) put_record(out, 'w', cwd);
  for (const auto& [name, value] : env) put_record(out, 'e', name + "=" + value);
  return out;
}

GuestReply parse_reply(std::uint32_t status, std::string_view bytes) {
  GuestReply reply;
  reply.status = status;
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(sanitize_utf8(bytes), ec);
  if (ec) malformed("not JSON (" + ec.message() + ")");
  if (!v.is_object()) malformed("not an object");
  const auto& o = v.get_object();
  if (const auto* results = o.if_contains("results"); results != nullptr && !results->is_null()) {
    if (!results->is_array()) malformed("\"results\" is not an array");
    if (results->get_array().size() > 1) malformed("more than one result");
    for (const auto& r : results->get_array()) {
      if (!r.is_object()) malformed("a result is not an object");
      const auto& ro = r.get_object();
      if (const auto* json = ro.if_contains("json")) {
        reply.results.push_back(ResultEntry::of_json(*json));
      } else if (const auto* text = ro.if_contains("text"); text != nullptr && text->is_string()) {
        reply.results.push_back(ResultEntry::of_text(std::string(text->get_string())));
      } else {
        malformed("a result has neither \"text\" nor \"json\"");
      }
    }
  }
  if (const auto* error = o.if_contains("error"); error != nullptr && !error->is_null()) {
    reply.error = parse_error(*error);
  }
  reply.cwd = string_field(o, "cwd", false);
  if (status == 1 && !reply.error) {
    reply.error = ExecutionError{"Error", "Unknown error", {}, std::nullopt};
  }
  return reply;
}

std::size_t results_json_bytes(const std::vector<ResultEntry>& results) {
  boost::json::array array;
  for (const auto& r : results) array.push_back(to_json(r));
  return boost::json::serialize(array).size();
}

void check_result_limit(const std::vector<ResultEntry>& results) {
  if (results_json_bytes(results) > kResultLimitBytes) {
    throw ExecutionLimitError("Result limit exceeded");
  }
}

}  // namespace embedded

GuestReply parse_guest_reply(std::uint32_t status, std::string_view bytes) {
  return embedded::parse_reply(status, bytes);
}

}  // namespace sandbox

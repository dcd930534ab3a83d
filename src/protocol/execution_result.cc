#include <cmath>

#include <sandbox/protocol.h>

#include "protocol/json_fields.h"
#include "protocol/json_number.h"

namespace sandbox {
namespace {

boost::json::array to_json_array(const std::vector<std::string>& lines) {
  boost::json::array a;
  a.reserve(lines.size());
  for (const auto& l : lines) a.emplace_back(l);
  return a;
}

std::vector<std::string> strings_from(const boost::json::value* v) {
  std::vector<std::string> out;
  if (!v || !v->is_array()) return out;
  for (const auto& e : v->get_array()) {
    if (e.is_string()) out.emplace_back(e.get_string());
  }
  return out;
}

// A counter of a runtime's answer: 0 when missing, not a number or negative (as before);
// nullopt for a number no uint64 holds (1e300, inf, a fraction), which must not reach a cast.
std::optional<std::uint64_t> number_from(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (!v || !v->is_number()) return 0;
  if (const auto i = checked_int64(*v); i && *i < 0) return 0;
  return checked_uint64(*v);
}

[[noreturn]] void invalid_response(std::string_view problem = {}) {
  std::string message = "Invalid sandbox response";
  if (!problem.empty()) message += ": " + std::string(problem);
  throw ApiError(ErrorKind::kInternal, message);
}

std::uint64_t required_number(const boost::json::object& o, std::string_view key) {
  const auto n = number_from(o, key);
  if (!n) invalid_response("usage." + std::string(key) + " is not an integer in range");
  return *n;
}

}  // namespace

boost::json::object to_json(const Logs& logs) {
  return {{"stdout", to_json_array(logs.stdout_lines)},
          {"stderr", to_json_array(logs.stderr_lines)}};
}

boost::json::value to_json(const ResultEntry& entry) {
  boost::json::object o;
  if (entry.json) {
    o["json"] = *entry.json;
  } else {
    o["text"] = entry.text.value_or("");
  }
  return o;
}

boost::json::object to_json(const ExecutionError& error) {
  boost::json::object o{{"name", error.name},
                        {"message", error.message},
                        {"traceback", to_json_array(error.traceback)}};
  if (error.line_number) o["lineNumber"] = *error.line_number;
  return o;
}

boost::json::object to_json(const Usage& usage) {
  return {{"fuelConsumed", usage.fuel_consumed},
          {"fuelLimit", usage.fuel_limit},
          {"memoryBytes", usage.memory_bytes}};
}

boost::json::object to_json(const ExecutionResult& result) {
  boost::json::object o;
  o["code"] = result.code;
  o["language"] = result.language;
  o["engine"] = result.engine;
  o["durationMs"] = result.duration_ms;
  o["logs"] = to_json(result.outcome.logs);
  boost::json::array results;
  for (const auto& r : result.outcome.results) results.push_back(to_json(r));
  o["results"] = std::move(results);
  if (result.outcome.error) o["error"] = to_json(*result.outcome.error);
  if (result.outcome.usage) o["usage"] = to_json(*result.outcome.usage);
  return o;
}

boost::json::object to_json(const SnapshotInfo& info) {
  boost::json::object o{{"build", info.build},      {"pages", info.pages},
                        {"bytes", info.bytes},      {"storedBytes", info.stored_bytes},
                        {"takenAt", info.taken_at}, {"stale", info.stale}};
  if (info.encoded_bytes) o["encodedBytes"] = *info.encoded_bytes;
  return o;
}

std::optional<SnapshotInfo> snapshot_info_from_json(const boost::json::value& v) {
  const auto* o = v.if_object();
  if (!o) return std::nullopt;
  const auto* build = o->if_contains("build");
  if (!build || !build->is_string()) return std::nullopt;
  SnapshotInfo info;
  info.build = std::string(build->get_string());
  const auto pages = number_from(*o, "pages");
  const auto bytes = number_from(*o, "bytes");
  const auto stored_bytes = number_from(*o, "storedBytes");
  const auto taken_at = number_from(*o, "takenAt");
  if (!pages || *pages > UINT32_MAX || !bytes || !stored_bytes || !taken_at ||
      *taken_at > static_cast<std::uint64_t>(INT64_MAX)) {
    return std::nullopt;
  }
  info.pages = static_cast<std::uint32_t>(*pages);
  info.bytes = *bytes;
  info.stored_bytes = *stored_bytes;
  info.taken_at = static_cast<std::int64_t>(*taken_at);
  const auto* stale = o->if_contains("stale");
  info.stale = stale && stale->is_bool() && stale->get_bool();
  // Ours, optional: a runtime that does not count it leaves it out; a malformed one is dropped.
  if (o->if_contains("encodedBytes")) info.encoded_bytes = number_from(*o, "encodedBytes");
  return info;
}

ExecutionResult execution_result_from_json(const boost::json::object& o) {
  const auto* results = o.if_contains("results");
  const auto* logs = o.if_contains("logs");
  if (!results || !results->is_array() || !logs || !logs->is_object()) {
    invalid_response();
  }
  ExecutionResult r;
  r.code = string_field(o, "code");
  r.language = string_field(o, "language");
  r.engine = string_field(o, "engine");
  if (const auto* d = o.if_contains("durationMs"); d && d->is_number()) {
    // 1e400 parses as inf, which would serialize as the non-JSON "Infinity".
    r.duration_ms = d->to_number<double>();
    if (!std::isfinite(r.duration_ms)) invalid_response("durationMs is not finite");
  }
  r.outcome.logs.stdout_lines = strings_from(logs->get_object().if_contains("stdout"));
  r.outcome.logs.stderr_lines = strings_from(logs->get_object().if_contains("stderr"));
  for (const auto& e : results->get_array()) {
    const auto* eo = e.if_object();
    if (!eo) continue;
    if (const auto* j = eo->if_contains("json")) {
      r.outcome.results.push_back(ResultEntry::of_json(*j));
    } else if (const auto* t = eo->if_contains("text"); t && t->is_string()) {
      r.outcome.results.push_back(ResultEntry::of_text(std::string(t->get_string())));
    }
  }
  if (const auto* err = o.if_contains("error"); err && err->is_object()) {
    const auto& eo = err->get_object();
    ExecutionError e;
    if (const auto* n = eo.if_contains("name"); n && n->is_string()) e.name = n->get_string();
    if (const auto* m = eo.if_contains("message"); m && m->is_string()) e.message = m->get_string();
    e.traceback = strings_from(eo.if_contains("traceback"));
    if (const auto* l = eo.if_contains("lineNumber"); l && l->is_number()) {
      e.line_number = checked_int64(*l);
      if (!e.line_number) invalid_response("error.lineNumber is not an integer in range");
    }
    r.outcome.error = std::move(e);
  }
  if (const auto* u = o.if_contains("usage"); u && u->is_object()) {
    const auto& uo = u->get_object();
    r.outcome.usage = Usage{required_number(uo, "fuelConsumed"), required_number(uo, "fuelLimit"),
                            required_number(uo, "memoryBytes")};
  }
  return r;
}

}  // namespace sandbox

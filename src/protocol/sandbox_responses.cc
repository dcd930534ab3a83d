#include "protocol/sandbox_responses.h"

#include <cmath>
#include <string>

#include "protocol/json_fields.h"
#include "protocol/json_number.h"

namespace sandbox {
namespace {

[[noreturn]] void invalid_number(std::string_view key) {
  throw ApiError(ErrorKind::kInternal,
                 "Invalid sandbox response: " + std::string(key) + " is not an integer");
}

}  // namespace

std::uint64_t response_count(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (!v || !v->is_number()) return 0;
  if (const auto i = checked_int64(*v); i && *i < 0) return 0;
  const auto u = checked_uint64(*v);
  if (!u) invalid_number(key);
  return *u;
}

std::optional<std::int64_t> response_epoch_ms(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (!v || !v->is_number()) return std::nullopt;
  const auto i = checked_int64(*v);
  if (!i) invalid_number(key);
  return i;
}

boost::json::object to_json(const CodeContext& c) {
  return {{"id", c.id},   {"binding", c.binding},      {"language", c.language},
          {"cwd", c.cwd}, {"createdAt", c.created_at}, {"lastUsed", c.last_used}};
}

CodeContext decode_code_context(const boost::json::object& o) {
  return CodeContext{string_field(o, "id"),        string_field(o, "binding"),
                     string_field(o, "language"),  string_field(o, "cwd"),
                     string_field(o, "createdAt"), string_field(o, "lastUsed")};
}

std::vector<CodeContext> decode_code_context_list(const boost::json::object& o) {
  std::vector<CodeContext> out;
  if (const auto* list = o.if_contains("contexts"); list && list->is_array()) {
    for (const auto& c : list->get_array()) {
      if (c.is_object()) out.push_back(decode_code_context(c.get_object()));
    }
  }
  return out;
}

FileOpResult decode_file_op_result(const boost::json::object& o) {
  FileOpResult r;
  r.success = bool_field(o, "success");
  r.path = string_field(o, "path");
  if (const auto* np = o.if_contains("newPath"); np && np->is_string()) {
    r.new_path = std::string(np->get_string());
  }
  r.timestamp = string_field(o, "timestamp");
  return r;
}

ReadFileResult decode_read_file_result(const boost::json::object& o) {
  ReadFileResult r;
  r.path = string_field(o, "path");
  r.content = string_field(o, "content");
  r.encoding = string_field(o, "encoding");
  r.is_binary = bool_field(o, "isBinary");
  r.mime_type = string_field(o, "mimeType");
  r.size = response_count(o, "size");
  r.timestamp = string_field(o, "timestamp");
  return r;
}

ListFilesResult decode_list_files_result(const boost::json::object& o) {
  ListFilesResult r;
  r.path = string_field(o, "path");
  r.timestamp = string_field(o, "timestamp");
  if (const auto* files = o.if_contains("files"); files && files->is_array()) {
    for (const auto& f : files->get_array()) {
      if (!f.is_object()) continue;
      const auto& fo = f.get_object();
      r.files.push_back(FileInfo{string_field(fo, "name"), string_field(fo, "absolutePath"),
                                 string_field(fo, "relativePath"), string_field(fo, "type"),
                                 response_count(fo, "size"), string_field(fo, "modifiedAt"),
                                 string_field(fo, "mode")});
    }
  }
  return r;
}

bool decode_exists_result(const boost::json::object& o) { return bool_field(o, "exists"); }

SandboxInfo decode_sandbox_info(const boost::json::object& o) {
  SandboxInfo info;
  info.id = string_field(o, "id");
  info.created_at = string_field(o, "createdAt");
  info.last_used = string_field(o, "lastUsed");
  if (const auto* env = o.if_contains("envVars"); env && env->is_object()) {
    for (const auto& [k, v] : env->get_object()) {
      if (v.is_string()) info.env_vars[std::string(k)] = std::string(v.get_string());
    }
  }
  if (const auto* list = o.if_contains("contexts"); list && list->is_array()) {
    for (const auto& c : list->get_array()) {
      if (!c.is_object()) continue;
      const auto& co = c.get_object();
      SandboxContextInfo ctx;
      static_cast<CodeContext&>(ctx) = decode_code_context(co);
      ctx.engine = string_field(co, "engine");
      ctx.executions = response_count(co, "executions");
      if (const auto* s = co.if_contains("snapshot"); s && s->is_object()) {
        const auto& so = s->get_object();
        ctx.snapshot = ContextSnapshotInfo{string_field(so, "build"),
                                           response_count(so, "pages"),
                                           response_count(so, "bytes"),
                                           response_count(so, "storedBytes"),
                                           response_epoch_ms(so, "takenAt").value_or(0),
                                           bool_field(so, "stale")};
        if (so.contains("encodedBytes")) {
          ctx.snapshot->encoded_bytes = response_count(so, "encodedBytes");
        }
      }
      info.contexts.push_back(std::move(ctx));
    }
  }
  if (const auto* w = o.if_contains("workspace"); w && w->is_object()) {
    info.workspace_entries = response_count(w->get_object(), "files");
    info.workspace_bytes = response_count(w->get_object(), "bytes");
  }
  const auto* file_api = o.if_contains("fileApi");
  info.file_api = !file_api || !file_api->is_bool() || file_api->get_bool();
  info.expires_at = response_epoch_ms(o, "expiresAt");
  return info;
}

std::optional<ExecutionContextInfo> decode_execution_context_info(const boost::json::object& o) {
  const auto* c = o.if_contains("context");
  if (!c || !c->is_object()) return std::nullopt;
  const auto& co = c->get_object();
  ExecutionContextInfo info{string_field(co, "id"), string_field(co, "cwd"),
                            response_count(co, "executions"), std::nullopt,
                            response_epoch_ms(co, "expiresAt")};
  if (const auto* ms = co.if_contains("snapshotMs");
      ms && ms->is_number() && std::isfinite(ms->to_number<double>())) {
    info.snapshot_ms = ms->to_number<double>();
  }
  return info;
}

std::vector<LanguageInfo> decode_language_list(const boost::json::object& o) {
  std::vector<LanguageInfo> out;
  const auto* list = o.if_contains("languages");
  if (!list || !list->is_array()) return out;
  for (const auto& l : list->get_array()) {
    if (!l.is_object()) continue;
    const auto& lo = l.get_object();
    LanguageInfo info;
    info.id = string_field(lo, "id");
    info.binding = string_field(lo, "binding");
    info.language = string_field(lo, "language");
    info.engine = string_field(lo, "engine");
    const auto boolean = [&](std::string_view key, bool fallback) {
      const auto* v = lo.if_contains(key);
      return v && v->is_bool() ? v->get_bool() : fallback;
    };
    info.contexts = boolean("contexts", false);
    info.remote = boolean("remote", false);
    info.available = boolean("available", true);
    if (const auto* lim = lo.if_contains("limits"); lim && lim->is_object()) {
      const auto& li = lim->get_object();
      info.limits =
          EngineLimits{response_count(li, "fuel"), response_count(li, "memoryBytes"),
                       response_count(li, "codeBytes"), response_count(li, "requestBytes")};
    }
    out.push_back(std::move(info));
  }
  return out;
}

std::optional<InterpreterInfo> decode_interpreter_info(const boost::json::object& o) {
  const auto* language = o.if_contains("language");
  const auto* engine = o.if_contains("engine");
  const auto* contexts = o.if_contains("contexts");
  const auto* protocol = o.if_contains("protocol");
  // A protocol number no int holds (1e300, 1.5) is not a runtime's answer, not a cast.
  const auto protocol_number = protocol ? checked_integer<int>(*protocol) : std::optional<int>(1);
  if (!language || !language->is_string() || !engine || !engine->is_string() || !contexts ||
      !contexts->is_bool() || !protocol_number) {
    return std::nullopt;
  }
  return InterpreterInfo{std::string(language->get_string()), std::string(engine->get_string()),
                         contexts->get_bool(), *protocol_number};
}

}  // namespace sandbox

// The Sandbox actor's POST /execute (docs/sandbox-api.md#execute): validation, context
// resolution (explicit context, the binding's default context, or the stateless fallback), the
// env merge, the call through the binding with the workspace pull, and applying the result.
#include <boost/json/serialize.hpp>

#include <sandbox/protocol.h>

#include "protocol/env_limits.h"
#include "protocol/execute_request.h"
#include "protocol/sandbox_execute_request.h"
#include "sandbox/env_vars.h"
#include "sandbox/sandbox.h"

namespace sandbox {
namespace {

ApiError binding_failed(const Binding& binding, const std::exception& e) {
  return ApiError(ErrorKind::kUpstreamFailed,
                  "Binding '" + binding.name() + "' failed: " + e.what());
}

ApiError context_not_found(const std::string& context_id) {
  return ApiError(ErrorKind::kContextNotFound, "Code context '" + context_id + "' not found",
                  {{"contextId", context_id}});
}

}  // namespace

HttpResponse Sandbox::execute(const std::string& body_text, const OutputObserver& on_output) {
  // 1. Validation, in the order of docs/sandbox-api.md#execute (SX1).
  const SandboxExecuteRequest request = decode_sandbox_execute_request(body_text);
  const std::string& code = request.code;
  const EnvPatch& call_env = request.env;
  const std::optional<std::string>& context_id = request.context_id;
  const std::optional<std::string>& binding_name = request.binding;

  // 2. The context: explicit, the binding's default (oldest), or the stateless fallback.
  ContextRecord record;
  if (context_id) {
    const auto row = env_.store.get_context(id_, *context_id);
    if (!row) throw context_not_found(*context_id);
    record = ContextRecord::from_json(*row);
  } else {
    // decode_sandbox_execute_request refused a body with neither; the same 400 if not.
    if (!binding_name) throw ApiError(ErrorKind::kBadRequest, "Pass a context or a binding");
    bool found = false;
    for (const auto& row : env_.store.list_contexts(id_)) {
      ContextRecord r = ContextRecord::from_json(row.value);
      if (r.binding == *binding_name && (!found || r.created_at < record.created_at)) {
        record = std::move(r);
        found = true;
      }
    }
    if (!found) {
      Binding& b = binding_named(*binding_name);
      const RuntimeProbe probe = probe_binding(b);
      if (!probe.contexts) return execute_stateless(b, code, call_env, on_output);
      ensure_meta();
      record = register_context(b, probe, std::string(kWorkspaceRoot), {});
    }
  }
  Binding& binding = binding_named(record.binding);
  const std::string key = key_for(record.binding);

  // 3. The arguments: merged env and the workspace's shape.
  InterpreterExecuteArgs args;
  args.context_id = record.id;
  args.code = code;
  args.on_output = on_output;
  args.env_vars =
      merge_env(env_from_json(ensure_meta().if_contains("envVars")), record.env_vars, call_env);
  require_env_within_limits(args.env_vars, "The merged envVars (sandbox, context and call)");
  Workspace* ws = nullptr;
  if (env_.options.file_api) {
    ws = &workspace_.get();
    Manifest m = ws->manifest();
    args.workspace.dirs = std::move(m.dirs);
    args.workspace.manifest = std::move(m.files);
  } else {
    args.workspace.disabled = true;
  }
  const GetWorkspaceFiles get_files = [&](const std::vector<std::string>& paths) {
    std::vector<WorkspaceFileEntry> out;
    if (!ws) return out;
    for (const auto& p : paths) {
      try {
        const NormalizedPath n = normalize_workspace_path(p);
        const StatResult st = ws->stat(n.absolute);
        if (st.type != WorkspaceNode::Type::kFile) continue;
        auto [bytes, updated_at] = ws->read_bytes(n.absolute);
        out.push_back(WorkspaceFileEntry{p, std::move(bytes), updated_at});
      } catch (const WorkspaceError&) {
        // Unknown paths are omitted (the runtime decides what a gap means).
      }
    }
    return out;
  };

  // 4-5. The call.
  InterpreterExecuteResult outcome;
  try {
    outcome = binding.execute_in_context(key, args, get_files);
  } catch (const std::exception& e) {
    throw binding_failed(binding, e);
  }
  if (auto* error = std::get_if<InterpreterCallError>(&outcome)) {
    if (error->body.code == ErrorCode::kContextNotFound) {
      // The runtime lost it (its own idle expiry, a wipe): drop it here too.
      env_.store.delete_context(id_, record.id);
      throw context_not_found(record.id);
    }
    // The runtime's own answer, relayed as it came (docs/protocol.md#error-envelope, V2).
    error->body.http_status = error->status;
    throw ApiError::relay(error->body);
  }
  InterpreterExecuteResponse& result = std::get<InterpreterExecuteResponse>(outcome);

  // 6-7. Apply the workspace diff and persist it with the registry row, in one transaction.
  record.executions += 1;
  record.last_used = now_iso();
  if (!result.context.cwd.empty()) record.cwd = result.context.cwd;
  record.snapshot = result.context.snapshot;
  WorkspacePersist diff;
  if (ws) {
    try {
      SyncRequest sync;
      sync.dirs = result.dirs;
      for (auto& f : result.files) {
        sync.files.push_back(SyncFile{f.path, std::move(f.data), f.updated_at});
      }
      sync.deleted = result.deleted;
      ws->apply_sync(sync);
      diff = workspace_.diff();
    } catch (...) {
      workspace_.discard();
      throw;
    }
  }
  persist(diff, StoredRow{record.id, record.to_json()});

  // 8-9. Touch, answer.
  const auto expires = touch();
  boost::json::object out = to_json(result.result);
  out["executionCount"] = record.executions;
  boost::json::object context{
      {"id", record.id}, {"cwd", record.cwd}, {"executions", record.executions}};
  if (result.context.snapshot_ms) context["snapshotMs"] = *result.context.snapshot_ms;
  if (expires) context["expiresAt"] = *expires;
  out["context"] = std::move(context);
  return HttpResponse::json(200, boost::json::serialize(out));
}

HttpResponse Sandbox::execute_stateless(Binding& binding, const std::string& code,
                                        const EnvPatch& call_env, const OutputObserver& on_output) {
  // The stored set is within kMaxEnvBytes, the call's within the body cap: a stateless run
  // takes them together without another cap (docs/sandbox-api.md#env-vars).
  const EnvVars env = merge_env(env_from_json(ensure_meta().if_contains("envVars")), {}, call_env);
  boost::json::object request{{"code", code}};
  if (!env.empty()) request["envVars"] = to_json(env);
  HttpResponse answer;
  try {
    answer = binding.fetch_execute("/execute", boost::json::serialize(request), on_output);
  } catch (const std::exception& e) {
    throw binding_failed(binding, e);
  }
  touch();
  return HttpResponse::json(answer.status, std::move(answer.body));
}

}  // namespace sandbox

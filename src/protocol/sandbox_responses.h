// Decoders of the sandboxd answers the C++ client reads (docs/sandbox-api.md#routes): the code
// contexts, the files API results and GET /sandboxes/{id}. The server encodes them in
// src/sandbox (ContextRecord::to_public_json and to_info_json, protocol/context_record.h; the
// files API, sandbox/files_api.cc).
//
// An answer comes from a server the client may not trust, so the rules are tolerant like the
// client always was, and checked: per field,
//   strings   a string, else "" (absent, null, a number, an array)
//   booleans  JSON true/false, else false (fileApi: else true)
//   counts    (size, executions, pages, bytes, storedBytes, workspace files/bytes,
//             executionCount) response_count: absent, not a number or a negative integer reads
//             as 0; a number no uint64 holds (1e300, 1.5, 2^64) is refused
//   epoch ms  (expiresAt, takenAt) response_epoch_ms: absent or not a number reads as none; a
//             number no int64 holds is refused
//   lists     (contexts, files) not an array reads as empty; an entry that is not an object is
//             skipped
//   envVars   not an object reads as {}; a value that is not a string is skipped
// A refusal is ApiError kInternal "Invalid sandbox response: <field> is not an integer"; the
// client reports it as a transport error with that message (client/client_support.h).
//
// Pure functions, safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include <sandbox/client.h>

namespace sandbox {

std::uint64_t response_count(const boost::json::object& o, std::string_view key);
std::optional<std::int64_t> response_epoch_ms(const boost::json::object& o, std::string_view key);

// {id, binding, language, cwd, createdAt, lastUsed}: POST /contexts, GET /contexts entries.
// The server's encoder (ContextRecord::to_public_json) is to_json.
boost::json::object to_json(const CodeContext& context);
[[nodiscard]] CodeContext decode_code_context(const boost::json::object& o);
// GET /contexts: {contexts: [CodeContext]}.
std::vector<CodeContext> decode_code_context_list(const boost::json::object& o);
// mkdir, delete, rename, move: {success, path, newPath?, timestamp}.
[[nodiscard]] FileOpResult decode_file_op_result(const boost::json::object& o);
// read: {path, content, encoding, isBinary, mimeType, size, timestamp}.
[[nodiscard]] ReadFileResult decode_read_file_result(const boost::json::object& o);
// list: {path, files: [FileInfo], timestamp}; FileInfo's permissions are not read.
[[nodiscard]] ListFilesResult decode_list_files_result(const boost::json::object& o);
// exists: {exists}.
[[nodiscard]] bool decode_exists_result(const boost::json::object& o);
// GET /sandboxes/{id}: {id, createdAt, lastUsed, envVars, contexts, workspace: {files, bytes},
// fileApi, expiresAt}; a context's snapshot that is not an object reads as none.
[[nodiscard]] SandboxInfo decode_sandbox_info(const boost::json::object& o);
// POST /sandboxes/{id}/execute, besides its ExecutionResult (execution_result_from_json): the
// `context` object {id, cwd, executions, snapshotMs, expiresAt}, none when absent or not an
// object; snapshotMs is read only when a finite number.
[[nodiscard]] std::optional<ExecutionContextInfo> decode_execution_context_info(
    const boost::json::object& o);
// GET /languages: {languages: [{id, binding, language, engine, contexts, remote, available,
// limits?: {fuel, memoryBytes, codeBytes, requestBytes}}]}; contexts and remote default to false,
// available to true (each only read when a boolean); limits only when an object.
std::vector<LanguageInfo> decode_language_list(const boost::json::object& o);
// GET /interpreter of a runtime (docs/sandbox-api.md#binding-probe): {language, engine,
// contexts, protocol?}. None when language or engine is not a string, contexts not a boolean, or
// protocol (1 when absent) not an integer an int holds; the protocol version is not checked here.
[[nodiscard]] std::optional<InterpreterInfo> decode_interpreter_info(const boost::json::object& o);

}  // namespace sandbox

// Validation of a stateless POST /execute body (docs/protocol.md#stateless-execute, E3 and E5-E10).
// E1, E2 and E4 (content type and size) are checked by the runtime before the body is read.
#pragma once

#include <string_view>

#include <sandbox/engine.h>

namespace sandbox {

// Parses and validates `body` for a runtime serving `runtime_language`. Throws ApiError with the
// status and message of docs/protocol.md#stateless-execute for the first rule broken; returns the
// request the engine receives (env vars with null values skipped and invalid names dropped).
[[nodiscard]] ExecutionRequest parse_execute_request(std::string_view body,
                                                     std::string_view runtime_language);

// The JSON body as an object, or ApiError 400 "Invalid JSON" / "Expected an object".
boost::json::object parse_json_object(std::string_view body);

// True when a content-type header value is JSON (starts with application/json, any case).
bool is_json_content_type(std::string_view content_type);

// docs/protocol.md#stateless-execute (E8): code must be a non-blank string of at most 64 KiB
// (UTF-8). Returns it; throws ApiError 400 "Non-empty code is required" or 413
// "Code exceeds 64 KiB".
std::string_view require_code(const boost::json::value* code);

}  // namespace sandbox

// ErrorReply: an exception carrying the exact HTTP response to answer with. The Sandbox uses it
// for answers that are not built from an ApiError: runtime answers relayed verbatim
// (docs/protocol.md#error-envelope, V2) and errno errors with a route-specific context.
#pragma once

#include <exception>

#include <sandbox/http.h>
#include <sandbox/protocol.h>

#include "http/error_answers.h"

namespace sandbox {

class ErrorReply : public std::exception {
 public:
  explicit ErrorReply(HttpResponse response) : response_(std::move(response)) {}
  explicit ErrorReply(const ErrorResponse& error) : response_(error_json(error)) {}
  const HttpResponse& response() const { return response_; }
  const char* what() const noexcept override { return "error reply"; }

 private:
  HttpResponse response_;
};

}  // namespace sandbox

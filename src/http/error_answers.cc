#include "http/error_answers.h"

#include <utility>

#include <boost/json/serialize.hpp>

namespace sandbox {

HttpResponse error_json(const ErrorResponse& error) {
  return HttpResponse::json(error.http_status, boost::json::serialize(to_json(error)));
}

HttpResponse method_not_allowed(std::string allow, const std::string& message,
                                std::int64_t now_ms) {
  HttpResponse r = error_json(ApiError(ErrorKind::kMethodNotAllowed, message).to_response(now_ms));
  r.headers.emplace_back("allow", std::move(allow));
  return r;
}

}  // namespace sandbox

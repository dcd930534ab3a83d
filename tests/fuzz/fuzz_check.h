// The oracle shared by the request fuzz targets: hostile input must get a clear client error,
// never a 5xx (a server-side failure) or a body that is not the JSON it claims to be.
#pragma once

#include <sandbox/http.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <boost/json/parse.hpp>

namespace sandbox::fuzz {

inline void check_response(const HttpResponse& r, std::string_view what) {
  bool ok = r.status >= 200 && r.status < 500;
  const auto type = r.header("content-type");
  if (ok && type && type->starts_with("application/json")) {
    boost::system::error_code ec;
    (void)boost::json::parse(r.body, ec);
    ok = !ec;
  }
  if (!ok) {
    std::fprintf(stderr, "%.*s answered %d: %s\n", static_cast<int>(what.size()), what.data(),
                 r.status, r.body.c_str());
    std::abort();
  }
}

}  // namespace sandbox::fuzz

// StaticFiles: a fixed set of files that sandboxd serves as they are, the Playground's page and
// bundle at `/` (docs/sandbox-api.md#playground). They hold no data, so they are served without
// an API key (the page asks for one and sends it with every API call).
//
// Each file answers GET with its content type, a strong ETag (a hash of the content),
// `cache-control: no-cache` (the browser revalidates every time: the names are not fingerprinted,
// and a new sandboxd may serve new files under them; a matching If-None-Match costs a 304 without
// a body), a Content-Security-Policy that allows scripts, styles and connections to this origin
// only (kStaticFilesCsp: the page makes no request anywhere else), `x-content-type-options:
// nosniff` and `referrer-policy: no-referrer`. Any other method is the caller's 405.
//
// Thread-safety: immutable after construction; any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sandbox/http.h>

namespace sandbox {

// What the page may load and where it may connect: this origin only; no inline script, no
// frames, no forms posting elsewhere. `img-src data: blob:` lets the Workspace tab preview an
// image it has read through the files API.
inline constexpr std::string_view kStaticFilesCsp =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'";

struct StaticFile {
  std::string path;          // the request path, e.g. "/" or "/playground.js"
  std::string content_type;  // e.g. "text/html; charset=utf-8"
  std::string_view body;     // borrowed: must outlive the StaticFiles (embedded data)
};

class StaticFiles {
 public:
  explicit StaticFiles(std::vector<StaticFile> files);

  // Whether `path` (without a query string) is one of the files.
  bool contains(std::string_view path) const;
  // The answer to a GET of `request.path()`: 200 with the file, or 304 when If-None-Match
  // names its ETag; nullopt when the path is not one of the files.
  std::optional<HttpResponse> respond(const HttpRequest& request) const;

 private:
  struct Entry {
    StaticFile file;
    std::string etag;
  };
  const Entry* find(std::string_view path) const;
  std::vector<Entry> entries_;
};

}  // namespace sandbox

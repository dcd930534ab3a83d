#include <string_view>

#include "playground/playground_files.h"

namespace sandbox {
namespace {

// Plain HTML (no script, no style: the CSP allows neither inline) naming the build option.
constexpr std::string_view kNotBuiltPage =
    "<!doctype html>\n"
    "<html lang=\"en\">\n"
    "<head><meta charset=\"utf-8\"><title>sandboxd: no Playground</title></head>\n"
    "<body>\n"
    "<h1>This sandboxd was built without the Playground</h1>\n"
    "<p>It was configured with <code>-DSANDBOX_BUILD_PLAYGROUND=OFF</code>, so it serves no "
    "page here. The API (<code>GET /languages</code>, <code>POST /execute/{language}</code>, "
    "<code>/sandboxes/{id}/...</code>, <code>/mcp</code>) is unchanged. Rebuild with "
    "<code>-DSANDBOX_BUILD_PLAYGROUND=ON</code> (the default; it needs node and npm) to serve "
    "the Playground.</p>\n"
    "</body>\n"
    "</html>\n";

}  // namespace

std::shared_ptr<const StaticFiles> playground_not_built_files() {
  static const auto files = std::make_shared<const StaticFiles>(
      std::vector<StaticFile>{{"/", "text/html; charset=utf-8", kNotBuiltPage}});
  return files;
}

}  // namespace sandbox

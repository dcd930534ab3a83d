#include "playground/playground_files.h"

#include <string_view>

extern "C" {
extern const char sandbox_playground_html_start[], sandbox_playground_html_end[];
extern const char sandbox_playground_css_start[], sandbox_playground_css_end[];
extern const char sandbox_playground_js_start[], sandbox_playground_js_end[];
}

namespace sandbox {
namespace {

std::string_view span(const char* start, const char* end) {
  return {start, static_cast<std::size_t>(end - start)};
}

}  // namespace

bool playground_built() { return true; }

std::shared_ptr<const StaticFiles> playground_static_files() {
  static const auto files = std::make_shared<const StaticFiles>(std::vector<StaticFile>{
      {"/", "text/html; charset=utf-8",
       span(sandbox_playground_html_start, sandbox_playground_html_end)},
      {"/playground.css", "text/css; charset=utf-8",
       span(sandbox_playground_css_start, sandbox_playground_css_end)},
      {"/playground.js", "text/javascript; charset=utf-8",
       span(sandbox_playground_js_start, sandbox_playground_js_end)},
  });
  return files;
}

}  // namespace sandbox

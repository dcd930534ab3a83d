// The project templates of src/scaffold/templates/, compiled into the library at build time
// (embed_templates.cmake). Paths are relative to that directory ("custom/engine.cc").
//
// Thread-safety: read-only data.
#pragma once

#include <string_view>
#include <vector>

namespace sandbox::scaffold {

// The template's text; throws std::out_of_range for an unknown path.
std::string_view template_text(std::string_view path);

// Every template's path, in the order they were embedded.
std::vector<std::string_view> template_paths();

}  // namespace sandbox::scaffold

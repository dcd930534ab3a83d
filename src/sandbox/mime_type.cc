#include "sandbox/mime_type.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace sandbox {

std::string mime_type_for(std::string_view path, bool is_binary) {
  static constexpr std::pair<std::string_view, std::string_view> kTypes[] = {
      {".json", "application/json"}, {".js", "text/javascript"},  {".mjs", "text/javascript"},
      {".py", "text/x-python"},      {".pl", "text/x-perl"},      {".rb", "text/x-ruby"},
      {".txt", "text/plain"},        {".md", "text/markdown"},    {".html", "text/html"},
      {".css", "text/css"},          {".csv", "text/csv"},        {".png", "image/png"},
      {".jpg", "image/jpeg"},        {".jpeg", "image/jpeg"},     {".gif", "image/gif"},
      {".svg", "image/svg+xml"},     {".pdf", "application/pdf"}, {".wasm", "application/wasm"},
      {".zip", "application/zip"},   {".gz", "application/gzip"},
  };
  const auto slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const auto dot = name.rfind('.');
  if (dot != std::string_view::npos) {
    std::string ext(name.substr(dot));
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const auto& [e, type] : kTypes) {
      if (ext == e) return std::string(type);
    }
  }
  return is_binary ? "application/octet-stream" : "text/plain";
}

}  // namespace sandbox

// MIME types of files read through the files API (docs/sandbox-api.md#files-api, F5): by lowercase
// extension, else application/octet-stream for binary content and text/plain otherwise.
#pragma once

#include <string>
#include <string_view>

namespace sandbox {

std::string mime_type_for(std::string_view path, bool is_binary);

}  // namespace sandbox

// Percent-encoding of one URL path segment (context ids and keys in runtime paths) and its
// decoding (context ids in sandbox paths: docs/sandbox-api.md#contexts).
#pragma once

#include <string>
#include <string_view>

namespace sandbox {

// Keeps A-Z a-z 0-9 - _ . ~ and percent-encodes every other byte.
std::string url_encode(std::string_view segment);
// Decodes %XX sequences; a malformed sequence is kept as is.
std::string url_decode(std::string_view segment);

}  // namespace sandbox

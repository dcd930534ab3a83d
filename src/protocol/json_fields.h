// Lenient field readers for JSON the server does not trust to be well formed but must still read:
// stored rows and other servers' answers. A field that is missing or of another type reads as
// the fallback; nothing throws. Strict request fields go through the typed decoders instead.
#pragma once

#include <string>
#include <string_view>

#include <boost/json/object.hpp>

namespace sandbox {

// The string at `key`, or `fallback` when it is missing or not a string.
inline std::string string_field(const boost::json::object& o, std::string_view key,
                                std::string fallback = {}) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::move(fallback);
}

// The boolean at `key`; false when it is missing or not a boolean.
inline bool bool_field(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_bool() && v->get_bool();
}

}  // namespace sandbox

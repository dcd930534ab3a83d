// JSON rows as stored text: what both storage backends (SQLite, PostgreSQL) write and read back.
#pragma once

#include <string>
#include <string_view>

#include <boost/json/object.hpp>

namespace sandbox {

std::string json_text(const boost::json::object& value);
// Parses a stored row; throws StorageError naming `what` when it is not a JSON object.
boost::json::object parse_json_row(const std::string& text, std::string_view what);

}  // namespace sandbox

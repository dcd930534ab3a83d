#include "storage/json_row.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "storage/storage_error.h"

namespace sandbox {

std::string json_text(const boost::json::object& value) { return boost::json::serialize(value); }

boost::json::object parse_json_row(const std::string& text, std::string_view what) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(text, ec);
  if (ec) throw StorageError("stored " + std::string(what) + " is not valid JSON: " + ec.message());
  if (!v.is_object()) throw StorageError("stored " + std::string(what) + " is not a JSON object");
  return std::move(v.get_object());
}

}  // namespace sandbox

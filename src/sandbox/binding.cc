#include "sandbox/binding.h"

#include <cctype>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <sandbox/protocol.h>

#include "protocol/json_number.h"

namespace sandbox {

bool valid_binding_name(std::string_view name) {
  if (name.empty()) return false;
  const auto c0 = static_cast<unsigned char>(name[0]);
  if (!(std::isalpha(c0) || c0 == '_') || c0 >= 0x80) return false;
  for (const char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x80 || !(std::isalnum(c) || c == '_')) return false;
  }
  return true;
}

RuntimeProbe probe_binding(Binding& binding) {
  const std::string& name = binding.name();
  if (!valid_binding_name(name))
    throw ApiError(ErrorKind::kBadRequest, "Unknown binding '" + name + "'");
  const auto not_runtime = [&]() -> ApiError {
    return ApiError(ErrorKind::kBadRequest,
                    "Binding '" + name + "' is not a sandbox-workers runtime Worker");
  };
  HttpResponse response;
  try {
    response = binding.fetch("GET", "/interpreter");
  } catch (const std::exception&) {
    throw not_runtime();
  }
  boost::system::error_code ec;
  const auto v = boost::json::parse(response.body, ec);
  if (ec || !v.is_object()) throw not_runtime();
  const auto& o = v.get_object();
  const auto* language = o.if_contains("language");
  const auto* engine = o.if_contains("engine");
  const auto* contexts = o.if_contains("contexts");
  const auto* protocol = o.if_contains("protocol");
  if (!language || !language->is_string() || !engine || !engine->is_string() || !contexts ||
      !contexts->is_bool() || (protocol && !protocol->is_number())) {
    throw not_runtime();
  }
  RuntimeProbe probe{std::string(language->get_string()), std::string(engine->get_string()),
                     contexts->get_bool(), 1};
  if (protocol) {
    if (checked_int64(*protocol) != kInterpreterProtocolVersion) {
      std::string shown = boost::json::serialize(*protocol);
      throw ApiError(ErrorKind::kBadRequest, "Binding '" + name + "' speaks interpreter protocol " +
                                                 shown + "; this caller supports " +
                                                 std::to_string(kInterpreterProtocolVersion));
    }
  }
  return probe;
}

void BindingSet::add(std::unique_ptr<Binding> binding) {
  if (!binding || !valid_binding_name(binding->name())) {
    throw std::invalid_argument("invalid binding name '" + (binding ? binding->name() : "") +
                                "' (expected [A-Za-z_][A-Za-z0-9_]*)");
  }
  if (find(binding->name())) {
    throw std::invalid_argument("binding '" + binding->name() + "' is defined twice");
  }
  bindings_.push_back(std::move(binding));
}

Binding* BindingSet::find(std::string_view name) const {
  for (const auto& b : bindings_) {
    if (b->name() == name) return b.get();
  }
  return nullptr;
}

}  // namespace sandbox

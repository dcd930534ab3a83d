#include "server/sandboxd_config.h"

#include <set>
#include <stdexcept>

#include <boost/asio/ip/address.hpp>

#include "http/site_guard.h"
#include "sandbox/binding.h"
#include "sandbox/interpreter_key.h"
#include "storage/lease.h"
#include "storage/postgres/open_storage.h"

namespace sandbox {

std::vector<std::string> split_list(std::string_view list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    auto end = list.find(',', start);
    if (end == std::string_view::npos) end = list.size();
    std::string_view item = list.substr(start, end - start);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    start = end + 1;
  }
  return out;
}

BindingSpec parse_binding_spec(std::string_view spec) {
  const auto eq = spec.find('=');
  if (eq == std::string_view::npos) {
    throw std::invalid_argument("--binding expects NAME=URL, got '" + std::string(spec) + "'");
  }
  BindingSpec out;
  out.name = std::string(spec.substr(0, eq));
  if (!valid_binding_name(out.name)) {
    throw std::invalid_argument("binding name '" + out.name +
                                "' must match [A-Za-z_][A-Za-z0-9_]*");
  }
  if (out.name.size() > kMaxBindingNameLength) {
    throw std::invalid_argument("binding name '" + out.name + "' is longer than " +
                                std::to_string(kMaxBindingNameLength) + " characters");
  }
  std::string url(spec.substr(eq + 1));
  constexpr std::string_view kScheme = "http://";
  if (!url.starts_with(kScheme) || url.size() == kScheme.size()) {
    throw std::invalid_argument("binding " + out.name + ": expected http://HOST:PORT[/PREFIX]");
  }
  // Credentials (http://TOKEN@host) become a bearer token and leave the URL.
  const auto authority_end = url.find('/', kScheme.size());
  const auto at = url.rfind('@', authority_end == std::string::npos ? url.size() : authority_end);
  if (at != std::string::npos && at >= kScheme.size()) {
    out.token = url.substr(kScheme.size(), at - kScheme.size());
    url = std::string(kScheme) + url.substr(at + 1);
  }
  while (url.size() > kScheme.size() + 1 && url.back() == '/') url.pop_back();
  out.url = url;
  return out;
}

bool is_loopback_listen(std::string_view listen) {
  const auto colon = listen.rfind(':');
  std::string_view host = colon == std::string_view::npos ? listen : listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host == "localhost") return true;
  // An address, parsed: "127.evil.example.com" is a DNS name that may resolve anywhere.
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(std::string(host), ec);
  if (ec) return false;
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, address.to_v6())
        .is_loopback();
  }
  return address.is_loopback();
}

void check_config(const SandboxdConfig& config) {
  const auto colon = config.listen.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == config.listen.size()) {
    throw std::invalid_argument("--listen expects HOST:PORT, got '" + config.listen + "'");
  }
  if (!config.metrics_listen.empty()) {
    const auto at = config.metrics_listen.rfind(':');
    if (at == std::string::npos || at == 0 || at + 1 == config.metrics_listen.size()) {
      throw std::invalid_argument("--metrics-listen expects HOST:PORT, got '" +
                                  config.metrics_listen + "'");
    }
    if (config.metrics_listen == config.listen && !config.listen.ends_with(":0")) {
      throw std::invalid_argument("--metrics-listen must differ from --listen (" + config.listen +
                                  ")");
    }
  }
  if (!is_loopback_listen(config.listen) && config.api_keys.empty()) {
    throw std::invalid_argument(
        "refusing to listen on " + config.listen +
        " without an API key: pass --api-key KEY or set SANDBOXD_API_KEYS (or listen on "
        "127.0.0.1)");
  }
  std::set<std::string> names;
  for (const auto& b : config.bindings) {
    if (!names.insert(b.name).second) {
      throw std::invalid_argument("binding '" + b.name + "' is given twice");
    }
  }
  for (const auto& key : config.api_keys) {
    if (key.empty()) throw std::invalid_argument("an API key must not be empty");
  }
  if (!config.database_url.empty() && !is_postgres_url(config.database_url)) {
    throw std::invalid_argument(
        "--database expects a PostgreSQL URL (postgresql://USER@HOST:PORT/"
        "DBNAME or libpq key=value pairs), got '" +
        config.database_url + "'");
  }
  if (!config.database_url.empty() && !postgres_built()) {
    throw std::invalid_argument("--database: " + std::string(kPostgresNotBuiltMessage));
  }
  if (config.allowed_hosts.size() > kMaxAllowedHosts) {
    throw std::invalid_argument("--allowed-host is given more than " +
                                std::to_string(kMaxAllowedHosts) + " times");
  }
  for (const auto& host : config.allowed_hosts) {
    if (!valid_allowed_host(host)) {
      throw std::invalid_argument(
          "--allowed-host expects a host name or IPv4 address without "
          "scheme or port, got '" +
          host + "'");
    }
  }
  if (config.max_sandboxes < 1) throw std::invalid_argument("--max-sandboxes must be at least 1");
  if (config.lease_ttl_ms < kMinLeaseTtlMs) {
    throw std::invalid_argument("--lease-ttl-ms must be at least " +
                                std::to_string(kMinLeaseTtlMs));
  }
  if (config.lease_ttl_ms > kMaxLeaseTtlMs) {
    throw std::invalid_argument("--lease-ttl-ms must be at most " + std::to_string(kMaxLeaseTtlMs) +
                                " (a day)");
  }
}

}  // namespace sandbox

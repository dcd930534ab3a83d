#include "http/site_guard.h"

#include <algorithm>
#include <cctype>

#include "protocol/execute_request.h"

namespace sandbox {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The host of "NAME", "NAME:PORT", "[V6]" or "[V6]:PORT" (lower case, brackets kept, one
// trailing dot dropped); nullopt when the port is not 1-5 digits or the brackets do not close.
std::optional<std::string> host_name(std::string_view authority) {
  std::size_t end = authority.find(':');
  if (authority.starts_with('[')) {
    end = authority.find(']');
    if (end == std::string_view::npos) return std::nullopt;
    ++end;
    if (end < authority.size() && authority[end] != ':') return std::nullopt;
  } else if (end != std::string_view::npos &&
             authority.find(':', end + 1) != std::string_view::npos) {
    return std::nullopt;  // an IPv6 address must be bracketed
  }
  std::string_view name = authority.substr(0, end);
  if (end < authority.size()) {
    const std::string_view port = authority.substr(end + 1);
    if (!all_digits(port) || port.size() > 5) return std::nullopt;
  }
  if (name.ends_with('.') && !name.starts_with('[')) name.remove_suffix(1);
  if (name.empty()) return std::nullopt;
  return lower(name);
}

// 127.0.0.0/8 written as a dotted quad.
bool loopback_ipv4(std::string_view name) {
  int parts = 0;
  std::size_t start = 0;
  std::string_view first;
  while (start <= name.size()) {
    std::size_t dot = name.find('.', start);
    if (dot == std::string_view::npos) dot = name.size();
    const std::string_view part = name.substr(start, dot - start);
    if (!all_digits(part) || part.size() > 3 || std::stoi(std::string(part)) > 255) return false;
    if (parts == 0) first = part;
    ++parts;
    start = dot + 1;
  }
  return parts == 4 && first == "127";
}

bool loopback_name(std::string_view name) {
  return name == "localhost" || name == "[::1]" || loopback_ipv4(name);
}

}  // namespace

SiteGuard::SiteGuard(const std::vector<std::string>& allowed_hosts) {
  for (const auto& h : allowed_hosts) {
    std::string name = lower(h);
    if (name.ends_with('.')) name.pop_back();
    allowed_.push_back(std::move(name));
  }
}

bool SiteGuard::name_allowed(std::string_view name) const {
  return loopback_name(name) || std::find(allowed_.begin(), allowed_.end(), name) != allowed_.end();
}

bool SiteGuard::host_allowed(std::string_view host) const {
  const auto name = host_name(host);
  return name && name_allowed(*name);
}

bool SiteGuard::origin_allowed(std::string_view origin) const {
  std::string_view rest;
  if (origin.starts_with("http://")) {
    rest = origin.substr(7);
  } else if (origin.starts_with("https://")) {
    rest = origin.substr(8);
  } else {
    return false;  // "null", other schemes, garbage
  }
  // An origin is exactly scheme://host[:port]: no path, user info or query.
  if (rest.find_first_of("/@?#") != std::string_view::npos) return false;
  return host_allowed(rest);
}

std::optional<SiteRefusal> SiteGuard::check(const HttpRequest& head, bool json_body) const {
  if (const auto origin = head.header("origin"); origin && !origin_allowed(*origin)) {
    return SiteRefusal{ErrorKind::kPermissionDenied,
                       "Origin not allowed: without API keys this server answers pages from "
                       "loopback origins only (or --allowed-host names)"};
  }
  if (const auto host = head.header("host"); host && !host_allowed(*host)) {
    return SiteRefusal{ErrorKind::kPermissionDenied,
                       "Host not allowed: without API keys this server answers requests for "
                       "loopback names only (add the name with --allowed-host)"};
  }
  if (json_body && head.method == "POST") {
    const auto length = head.content_length();
    const bool has_body = (length && *length > 0) || head.header("transfer-encoding").has_value();
    if (has_body && !is_json_content_type(head.header("content-type").value_or(""))) {
      return SiteRefusal{ErrorKind::kUnsupportedMediaType, "Content-Type must be application/json"};
    }
  }
  return std::nullopt;
}

bool valid_allowed_host(std::string_view name) {
  if (name.empty() || name.size() > kMaxHostNameLength) return false;
  if (name.front() == '.' || name.front() == '-' || name.find("..") != std::string_view::npos) {
    return false;
  }
  return std::all_of(name.begin(), name.end(),
                     [](unsigned char c) { return std::isalnum(c) != 0 || c == '-' || c == '.'; });
}

bool is_loopback_origin(std::string_view origin) { return SiteGuard().origin_allowed(origin); }

}  // namespace sandbox

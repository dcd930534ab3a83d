// The guard of a server without API keys against requests made by web pages
// (docs/security.md#cross-site-requests).
//
// Any page a user visits can make the browser send a "simple" request (no CORS preflight: POST
// with content-type text/plain, say) to a server on the user's loopback interface, and through
// DNS rebinding (a name the page controls, re-resolved to 127.0.0.1) read the answers too. A
// server with API keys is safe from both (the page cannot know a key); one without keys checks
// every request it answers with this guard:
//   G1. An `Origin` header must name a loopback host (localhost, 127.0.0.0/8, [::1]) or an
//       allowed host; "null" and anything unparsable are refused. Browsers send Origin on every
//       cross-origin POST, so a page elsewhere cannot write.
//   G2. A `Host` header must name a loopback host or an allowed host (any port): a page reached
//       through a rebound name sends that name, so it cannot read. (A request without Host,
//       which no browser sends, passes.)
//   G3. A POST with a body to a route that takes JSON must say content-type application/json:
//       a simple request cannot.
// Names compare case-insensitively, with one trailing dot ignored.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sandbox/errors.h>
#include <sandbox/http.h>

namespace sandbox {

// Why the guard refused a request: 403 kPermissionDenied (G1, G2) or 415
// kUnsupportedMediaType (G3), with a message naming the header.
struct SiteRefusal {
  ErrorKind kind;
  std::string message;
};

// The most --allowed-host names one server accepts, and the longest (a DNS name's limit).
inline constexpr std::size_t kMaxAllowedHosts = 64;
inline constexpr std::size_t kMaxHostNameLength = 253;

class SiteGuard {
 public:
  // `allowed_hosts`: names accepted besides the loopback ones (no port); each must pass
  // valid_allowed_host().
  explicit SiteGuard(const std::vector<std::string>& allowed_hosts = {});

  // nullopt when the request may be answered. G3 applies only when the route takes a JSON
  // body (`json_body`); a route that takes none answers a POST with its own error.
  std::optional<SiteRefusal> check(const HttpRequest& head, bool json_body = true) const;

  // Whether `host` (a Host header: NAME, NAME:PORT, [V6] or [V6]:PORT) is loopback or allowed.
  bool host_allowed(std::string_view host) const;
  // Whether `origin` (SCHEME://HOST[:PORT], http or https) names a loopback or allowed host.
  bool origin_allowed(std::string_view origin) const;

 private:
  bool name_allowed(std::string_view name) const;
  std::vector<std::string> allowed_;  // lower case, no trailing dot
};

// Whether `name` may be given to --allowed-host: a DNS name (letters, digits, '-', '.') or an
// IPv4 literal, 1 to kMaxHostNameLength characters, without scheme, port or brackets.
bool valid_allowed_host(std::string_view name);

// Whether `origin` names a loopback host (G1 without allowed hosts).
bool is_loopback_origin(std::string_view origin);

}  // namespace sandbox

// RouteTable: which route of a server a request's method and path select, for the routers of
// sandboxd (src/server), a sandbox (src/sandbox), a runtime and an interpreter key
// (src/interpreter), so that each states its routes as a table and none matches paths or
// builds an Allow header by hand.
//
// A route is a method, a path pattern and the router's own identifier for it (an enum). A
// pattern is literal text with two kinds of parameter:
//   {name}     one or more characters up to the next '/' or the end of the path;
//   {name...}  one or more characters to the end of the path, '/' included (last in a pattern).
// A parameter takes every character it may (no backtracking): "/s/{id}{rest...}" does not match
// "/s/abc", since {id} takes "abc" and leaves nothing for {rest...}. Parameters are the raw
// path text (percent-decoding, if any, is the router's business). The method "*" matches any.
//
// match() answers in one of three ways:
//   kFound        the first route, in table order, whose pattern and method match; its
//                 parameters in pattern order;
//   kWrongMethod  some pattern matches but no method does: `allow` lists the methods of the
//                 routes whose pattern matches, in table order, joined by ", " (the Allow header
//                 of a 405), and `id` is the first of those routes (a router may word its 405 per
//                 route); whether a router answers 405 or 404 then is the router's protocol;
//   kNotFound     no pattern matches.
//
// Thread-safety: a table is immutable once built; match() may be called from any thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sandbox {

template <class Id>
class RouteTable {
 public:
  struct Route {
    std::string_view method;   // "GET", "POST", ... or "*"
    std::string_view pattern;  // see the top of this file
    Id id;
  };

  struct Match {
    enum class Outcome { kFound, kWrongMethod, kNotFound };
    Outcome outcome = Outcome::kNotFound;
    Id id{};
    std::vector<std::string> params;  // copies: a match may outlive the path it was made from
    std::string allow;

    bool found() const { return outcome == Outcome::kFound; }
    // The parameter at `i` (pattern order).
    const std::string& param(std::size_t i) const { return params.at(i); }
  };

  // Throws std::invalid_argument for a pattern whose parameter is not closed or whose
  // {name...} is not last: tables are built once, at start, from literals.
  RouteTable(std::initializer_list<Route> routes) : routes_(routes) {
    for (const Route& r : routes_) check_pattern(r.pattern);
  }

  Match match(std::string_view method, std::string_view path) const {
    Match result;
    bool path_known = false;
    for (const Route& r : routes_) {
      std::vector<std::string> params;
      if (!match_pattern(r.pattern, path, params)) continue;
      if (r.method == "*" || r.method == method) {
        result.outcome = Match::Outcome::kFound;
        result.id = r.id;
        result.params = std::move(params);
        result.allow.clear();
        return result;
      }
      if (!path_known) result.id = r.id;
      path_known = true;
      if (!result.allow.empty()) result.allow += ", ";
      result.allow += r.method;
    }
    result.outcome = path_known ? Match::Outcome::kWrongMethod : Match::Outcome::kNotFound;
    return result;
  }

 private:
  static void check_pattern(std::string_view pattern) {
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      if (pattern[i] != '{') continue;
      const std::size_t close = pattern.find('}', i);
      if (close == std::string_view::npos || close == i + 1) {
        throw std::invalid_argument("route pattern '" + std::string(pattern) +
                                    "': a parameter is not closed or has no name");
      }
      if (pattern.substr(i, close - i).ends_with("...") && close + 1 != pattern.size()) {
        throw std::invalid_argument("route pattern '" + std::string(pattern) +
                                    "': {name...} must end the pattern");
      }
      i = close;
    }
  }

  static bool match_pattern(std::string_view pattern, std::string_view path,
                            std::vector<std::string>& params) {
    std::size_t p = 0;  // in pattern
    std::size_t s = 0;  // in path
    while (p < pattern.size()) {
      if (pattern[p] != '{') {
        if (s >= path.size() || path[s] != pattern[p]) return false;
        ++p;
        ++s;
        continue;
      }
      const std::size_t close = pattern.find('}', p);
      const bool rest = pattern.substr(p, close - p).ends_with("...");
      const std::size_t end = rest ? path.size() : std::min(path.find('/', s), path.size());
      if (end == s) return false;  // a parameter is never empty
      params.emplace_back(path.substr(s, end - s));
      s = end;
      p = close + 1;
    }
    return s == path.size();
  }

  std::vector<Route> routes_;
};

}  // namespace sandbox

#include "server/static_files.h"

#include <cstdint>
#include <cstdio>

namespace sandbox {
namespace {

// FNV-1a 64: the ETag only needs to change when the content does.
std::string etag_of(std::string_view body) {
  std::uint64_t h = 14695981039346656037ull;
  for (const char c : body) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return "\"" + std::string(buf) + "-" + std::to_string(body.size()) + "\"";
}

}  // namespace

StaticFiles::StaticFiles(std::vector<StaticFile> files) {
  entries_.reserve(files.size());
  for (auto& f : files) {
    std::string etag = etag_of(f.body);
    entries_.push_back(Entry{std::move(f), std::move(etag)});
  }
}

const StaticFiles::Entry* StaticFiles::find(std::string_view path) const {
  for (const auto& e : entries_) {
    if (e.file.path == path) return &e;
  }
  return nullptr;
}

bool StaticFiles::contains(std::string_view path) const { return find(path) != nullptr; }

std::optional<HttpResponse> StaticFiles::respond(const HttpRequest& request) const {
  const Entry* e = find(request.path());
  if (!e) return std::nullopt;
  HttpResponse r;
  r.headers = {{"content-type", e->file.content_type},
               {"cache-control", "no-cache"},
               {"etag", e->etag},
               {"content-security-policy", std::string(kStaticFilesCsp)},
               {"x-content-type-options", "nosniff"},
               {"referrer-policy", "no-referrer"}};
  // A list of tags, or a weak comparison (W/"..."), still contains the tag itself.
  if (const auto tags = request.header("if-none-match");
      tags && (tags->find(e->etag) != std::string::npos || *tags == "*")) {
    r.status = 304;
    return r;
  }
  r.status = 200;
  r.body = std::string(e->file.body);
  return r;
}

}  // namespace sandbox

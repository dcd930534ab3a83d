#include <array>

#include <sandbox/errors.h>

namespace sandbox {
namespace {

// The size is deduced from the entries (std::array's deduction guide): one per kind.
constexpr std::array kKinds{
#define SANDBOX_ERROR_KIND_INFO(kind, code, status, retryable, meaning) \
  ErrorKindInfo{ErrorKind::kind, #kind, ErrorCode::code, status, retryable, meaning},
    SANDBOX_ERROR_KINDS(SANDBOX_ERROR_KIND_INFO)
#undef SANDBOX_ERROR_KIND_INFO
};

// Our invariant: the array is indexed by the enum.
constexpr bool indexed_by_kind() {
  for (std::size_t i = 0; i < kKinds.size(); ++i) {
    if (static_cast<std::size_t>(kKinds[i].kind) != i) return false;
  }
  return true;
}
static_assert(indexed_by_kind());

}  // namespace

std::span<const ErrorKindInfo> error_kinds() { return kKinds; }

const ErrorKindInfo& error_kind_info(ErrorKind kind) {
  return kKinds[static_cast<std::size_t>(kind)];
}

ErrorKind error_kind_for(ErrorCode code, int http_status) {
  for (const auto& k : kKinds) {
    if (k.code == code && k.http_status == http_status) return k.kind;
  }
  // A status the table does not pair with the code: read as the code's default status, so an
  // odd status never makes a failure look retryable.
  const int fallback = error_code_status(code);
  for (const auto& k : kKinds) {
    if (k.code == code && k.http_status == fallback) return k.kind;
  }
  return ErrorKind::kInternal;
}

}  // namespace sandbox

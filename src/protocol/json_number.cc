#include "protocol/json_number.h"

#include <cmath>

namespace sandbox {
namespace {

// 2^63 and 2^64 are exact doubles; every double below them converts without overflow.
constexpr double kTwoTo63 = 9223372036854775808.0;
constexpr double kTwoTo64 = 18446744073709551616.0;

// A finite double without a fractional part (NaN and infinities fail both tests).
bool is_integral(double d) { return std::isfinite(d) && std::trunc(d) == d; }

}  // namespace

std::optional<std::int64_t> checked_int64(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::int64:
      return v.get_int64();
    case boost::json::kind::uint64:
      if (v.get_uint64() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return std::nullopt;
      }
      return static_cast<std::int64_t>(v.get_uint64());
    case boost::json::kind::double_: {
      const double d = v.get_double();
      if (!is_integral(d) || d < -kTwoTo63 || d >= kTwoTo63) return std::nullopt;
      return static_cast<std::int64_t>(d);
    }
    default:
      return std::nullopt;
  }
}

std::optional<std::uint64_t> checked_uint64(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::int64:
      if (v.get_int64() < 0) return std::nullopt;
      return static_cast<std::uint64_t>(v.get_int64());
    case boost::json::kind::uint64:
      return v.get_uint64();
    case boost::json::kind::double_: {
      const double d = v.get_double();
      if (!is_integral(d) || d < 0 || d >= kTwoTo64) return std::nullopt;
      return static_cast<std::uint64_t>(d);
    }
    default:
      return std::nullopt;
  }
}

}  // namespace sandbox

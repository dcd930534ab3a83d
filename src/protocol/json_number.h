// Checked conversions of JSON numbers to C++ integers. A client, a remote runtime or a stored
// row controls these numbers, and boost::json hands over doubles for anything outside int64 and
// uint64 (1e300, -1e400 parsed as -inf, 2^64): casting such a double to an integer is undefined
// behaviour, so every decoder converts through these instead of static_cast.
//
// Pure functions, safe from any thread.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

#include <boost/json/value.hpp>

namespace sandbox {

// The value as an int64 when it is a JSON number that is exactly an integer in
// [-2^63, 2^63): an int64, a uint64 up to INT64_MAX, or a finite double without a fractional
// part in range. Otherwise (not a number, NaN/inf, fractional, out of range) nullopt.
std::optional<std::int64_t> checked_int64(const boost::json::value& v);

// The same for [0, 2^64): negative numbers are refused.
std::optional<std::uint64_t> checked_uint64(const boost::json::value& v);

// checked_int64/checked_uint64 narrowed to T (int, std::uint32_t, ...): nullopt when the integer
// does not fit T.
template <typename T>
std::optional<T> checked_integer(const boost::json::value& v) {
  static_assert(std::numeric_limits<T>::is_integer);
  if constexpr (std::numeric_limits<T>::is_signed) {
    const auto i = checked_int64(v);
    if (!i || *i < std::numeric_limits<T>::min() || *i > std::numeric_limits<T>::max()) {
      return std::nullopt;
    }
    return static_cast<T>(*i);
  } else {
    const auto u = checked_uint64(v);
    if (!u || *u > std::numeric_limits<T>::max()) return std::nullopt;
    return static_cast<T>(*u);
  }
}

}  // namespace sandbox

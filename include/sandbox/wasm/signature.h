// Signatures of exported functions: the Wasm value types, what a module reports about an export
// (FunctionInfo), and the mapping from a C++ signature (`std::uint32_t(std::uint32_t, double)`)
// to Wasm types that Module::function (module.h) checks an export against: uint32_t/int32_t =
// i32, uint64_t/int64_t = i64, float = f32, double = f64; void or one result.
//
// Thread-safety: value types and compile-time traits.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace sandbox::wasm {

enum class ValType : std::uint8_t { kI32, kI64, kF32, kF64, kFuncRef, kExternRef };

// An exported function as the module declares it.
struct FunctionInfo {
  std::string_view name;
  std::vector<ValType> params;
  std::vector<ValType> results;
};

namespace detail {
template <class T>
struct ValTypeOf;
template <>
struct ValTypeOf<std::uint32_t> {
  static constexpr ValType value = ValType::kI32;
};
template <>
struct ValTypeOf<std::int32_t> {
  static constexpr ValType value = ValType::kI32;
};
template <>
struct ValTypeOf<std::uint64_t> {
  static constexpr ValType value = ValType::kI64;
};
template <>
struct ValTypeOf<std::int64_t> {
  static constexpr ValType value = ValType::kI64;
};
template <>
struct ValTypeOf<float> {
  static constexpr ValType value = ValType::kF32;
};
template <>
struct ValTypeOf<double> {
  static constexpr ValType value = ValType::kF64;
};
template <class Sig>
struct SigTraits;
template <class R>
struct ResultTypes {
  static constexpr std::array<ValType, 1> kTypes{ValTypeOf<R>::value};
};
template <>
struct ResultTypes<void> {
  static constexpr std::array<ValType, 0> kTypes{};
};
template <class R, class... A>
struct SigTraits<R(A...)> {
  using Result = R;
  static constexpr std::array<ValType, sizeof...(A)> kParams{ValTypeOf<A>::value...};
  static constexpr const auto& kResults = ResultTypes<R>::kTypes;
};
}  // namespace detail

}  // namespace sandbox::wasm

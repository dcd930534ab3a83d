// Function<Sig>: a typed handle to an exported function, checked once against its module's
// export (Module::function, module.h) so that calling it looks nothing up. Calling one needs an
// Instance: operator() is defined in instance.h, after Instance, which includes this header.
//
//   auto eval = module.function<std::uint32_t(std::uint32_t, std::uint32_t)>("eval");
//   CallResult<std::uint32_t> r = eval(*instance, ptr, len);  // #include <sandbox/wasm/instance.h>
//
// Thread-safety: an immutable value, safe to share; a call follows the rules of its instance.
#pragma once

#include <string_view>

#include <sandbox/wasm/trap.h>

namespace sandbox::wasm {

class Instance;
class Module;

template <class Sig>
class Function;
template <class R, class... A>
class Function<R(A...)> {
 public:
  Function() = default;
  bool valid() const { return fn_ != nullptr; }
  std::string_view name() const { return name_; }
  // Calls it on `instance` (which must be an instance of the module this came from). Throws
  // WasmError for an empty handle or an instance of another module, or when the instance is
  // invalid; a guest failure is the trap.
  CallResult<R> operator()(Instance& instance, A... args) const;

 private:
  friend class Module;
  using Raw = R (*)(void*, A...);
  Function(const void* module_key, std::string_view name, Raw fn)
      : module_key_(module_key), name_(name), fn_(fn) {}
  const void* module_key_ = nullptr;
  std::string_view name_;
  Raw fn_ = nullptr;
};

}  // namespace sandbox::wasm

// The host side of ruby.wasm's wit-bindgen (pre-component-model) canonical ABI: the handle table
// behind the `canonical_abi` imports, one per instance (its import context).
//
// ruby.wasm hands Ruby values to the host as handles: a call that returns an rb-abi-value makes
// the guest call resource_new(rep) (rep is the guest's own pointer), and a handle passed back in
// is turned into its rep by resource_get(handle). The host removes a handle when it is done
// with the value and then calls the guest's canonical_abi_drop_rb-abi-value(rep).
//
// Invariant (what makes a linear-memory snapshot of a Ruby instance complete): the table is
// empty between calls. The driver takes each value it receives out of the table in the same
// call (empty() is checked after every request, before images and snapshots).
//
// JavaScript values (js-abi-value) never exist: every import that would create one is refused.
//
// Thread-safety: used by the one thread running its instance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <sandbox/embedded.h>

namespace sandbox::engines {

class RubyHandles final : public GuestExtension {
 public:
  // Most handles alive at once; a guest asking for more traps (it never needs more than two).
  static constexpr std::size_t kMaxHandles = 1024;

  std::vector<wasm::ImportContext> import_contexts() override { return {{"canonical_abi", this}}; }
  bool empty() const override { return live_ == 0; }

  // A new handle for `rep`, or nullopt when the table is full. Never throws.
  std::optional<std::uint32_t> insert(std::uint32_t rep) noexcept;
  // The rep of a live handle, or nullopt.
  std::optional<std::uint32_t> get(std::uint32_t handle) const noexcept;
  // Removes a live handle and returns its rep, or nullopt.
  std::optional<std::uint32_t> remove(std::uint32_t handle) noexcept;

 private:
  struct Slot {
    std::uint32_t rep = 0;
    bool live = false;
  };
  Slot slots_[kMaxHandles];
  std::size_t live_ = 0;
};

}  // namespace sandbox::engines

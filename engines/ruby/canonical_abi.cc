#include "canonical_abi.h"

#include "wasm/host_call.h"

namespace sandbox::engines {

std::optional<std::uint32_t> RubyHandles::insert(std::uint32_t rep) noexcept {
  // Handle 0 is never handed out, so a zeroed result area is never mistaken for a value.
  for (std::uint32_t h = 1; h < kMaxHandles; ++h) {
    if (!slots_[h].live) {
      slots_[h] = Slot{rep, true};
      ++live_;
      return h;
    }
  }
  return std::nullopt;
}

std::optional<std::uint32_t> RubyHandles::get(std::uint32_t handle) const noexcept {
  if (handle == 0 || handle >= kMaxHandles || !slots_[handle].live) return std::nullopt;
  return slots_[handle].rep;
}

std::optional<std::uint32_t> RubyHandles::remove(std::uint32_t handle) noexcept {
  const auto rep = get(handle);
  if (rep) {
    slots_[handle] = Slot{};
    --live_;
  }
  return rep;
}

}  // namespace sandbox::engines

// The imports, called by the generated code with the instance's context (a RubyHandles). They
// keep no C++ objects alive where they trap.
struct Z_canonical_abi_instance_t;

namespace {

sandbox::engines::RubyHandles& table(Z_canonical_abi_instance_t* ctx) {
  return *reinterpret_cast<sandbox::engines::RubyHandles*>(ctx);
}

}  // namespace

extern "C" {

std::uint32_t Z_canonical_abiZ_resource_new_rbZ2DabiZ2Dvalue(Z_canonical_abi_instance_t* ctx,
                                                             std::uint32_t rep) {
  const std::optional<std::uint32_t> handle = table(ctx).insert(rep);
  if (!handle) {
    sandbox_wasm_trap_with_message(SANDBOX_TRAP_HOST_ERROR, "too many live Ruby value handles");
  }
  return *handle;
}

std::uint32_t Z_canonical_abiZ_resource_get_rbZ2DabiZ2Dvalue(Z_canonical_abi_instance_t* ctx,
                                                             std::uint32_t handle) {
  const std::optional<std::uint32_t> rep = table(ctx).get(handle);
  if (!rep) sandbox_wasm_trap_with_message(SANDBOX_TRAP_HOST_ERROR, "invalid Ruby value handle");
  return *rep;
}

// JavaScript values are never created (the bridge is refused), so there is nothing to drop.
void Z_canonical_abiZ_resource_drop_jsZ2DabiZ2Dvalue(Z_canonical_abi_instance_t* ctx,
                                                     std::uint32_t handle) {
  (void)ctx;
  (void)handle;
}

}  // extern "C"

#include "embedded/guest.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace sandbox {

std::span<std::uint8_t> EmbeddedGuest::bytes(std::uint32_t ptr, std::uint32_t len) {
  const auto memory = instance().memory();
  if (ptr > memory.size() || len > memory.size() - ptr) {
    throw std::runtime_error("The interpreter returned a range outside its memory (" +
                             std::to_string(ptr) + " + " + std::to_string(len) + ")");
  }
  return memory.subspan(ptr, len);
}

std::uint32_t EmbeddedGuest::read_u32(std::uint32_t ptr) {
  const auto b = bytes(ptr, 4);
  std::uint32_t v;
  std::memcpy(&v, b.data(), 4);  // Wasm memory is little-endian, like every host we build for
  return v;
}

void EmbeddedGuest::write_u32(std::uint32_t ptr, std::uint32_t value) {
  std::memcpy(bytes(ptr, 4).data(), &value, 4);
}

std::string EmbeddedGuest::read_string(std::uint32_t ptr, std::uint32_t len) {
  const auto b = bytes(ptr, len);
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

std::string EmbeddedGuest::read_c_string(std::uint32_t ptr, std::uint32_t max) {
  const auto memory = instance().memory();
  if (ptr >= memory.size()) {
    throw std::runtime_error("The interpreter returned a bad string pointer");
  }
  const std::size_t room = std::min<std::size_t>(memory.size() - ptr, std::size_t{max} + 1);
  const auto* begin = memory.data() + ptr;
  const auto* end = static_cast<const std::uint8_t*>(std::memchr(begin, 0, room));
  if (end == nullptr) {
    throw std::runtime_error("The interpreter returned a string longer than " +
                             std::to_string(max) + " bytes");
  }
  return std::string(reinterpret_cast<const char*>(begin), static_cast<std::size_t>(end - begin));
}

namespace embedded {
namespace {

constexpr std::uint64_t kUnlimitedFuel =
    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

}  // namespace

Guest::Guest(const GuestConfig& config, WasiOptions wasi)
    : config_(config), wasi_(std::make_unique<WasiHost>(std::move(wasi))) {
  if (config_.module == nullptr || config_.driver == nullptr) {
    throw std::invalid_argument("GuestConfig needs a module and a driver");
  }
  extension_ = config_.driver->make_extension();
  std::vector<wasm::ImportContext> imports = {{"wasi_snapshot_preview1", wasi_->import_context()}};
  if (extension_) {
    for (auto& c : extension_->import_contexts()) imports.push_back(std::move(c));
  }
  instance_ =
      wasm::Instance::create(*config_.module, wasm::InstanceOptions{
                                                  .imports = std::move(imports),
                                                  .memory_limit_bytes = config_.memory_limit_bytes,
                                                  .pool = config_.pool,
                                                  .skip_data_segments = config_.skip_data_segments,
                                              });
  wasi_->attach_memory(instance_->rt_memory());
  if (config_.call_timeout.count() > 0) instance_->set_call_timeout(config_.call_timeout);
}

Guest::~Guest() { instance_.reset(); }

GuestReply Guest::eval(std::string_view) {
  throw std::logic_error("EmbeddedGuest::eval() needs the built-in embedded ABI");
}

bool Guest::host_state_empty() const { return !wasi_->has_open_guest_fds() && extension_empty(); }

void Guest::throw_trap(const wasm::Trap& trap) {
  if (trap.kind == wasm::TrapKind::kOutputLimit || wasi_->output_limit_exceeded()) {
    throw ExecutionLimitError("Output limit exceeded");
  }
  if (trap.is_limit()) {
    throw ExecutionLimitError(trap.message.empty() ? std::string(wasm::trap_kind_message(trap.kind))
                                                   : trap.message);
  }
  if (auto described = config_.driver->describe_trap(trap)) throw GuestTrap(trap, *described);
  if (trap.kind == wasm::TrapKind::kExit) {
    throw GuestTrap(trap, "exit with exit code " + std::to_string(trap.exit_code));
  }
  std::string message =
      trap.message.empty() ? std::string(wasm::trap_kind_message(trap.kind)) : trap.message;
  if (trap.kind == wasm::TrapKind::kHostError && !wasi_->host_error().empty()) {
    message += ": " + wasi_->host_error();
  }
  throw GuestTrap(trap, message);
}

void Guest::reset_fuel() { set_fuel(config_.fuel); }

void Guest::set_fuel(std::uint64_t budget) {
  budget_ = budget;
  if (!config_.module->metered()) return;
  instance_->set_fuel(budget > 0 ? std::min(budget, kUnlimitedFuel) : kUnlimitedFuel);
}

Usage Guest::usage() const {
  Usage u;
  u.fuel_limit = budget_;
  if (config_.module->metered()) u.fuel_consumed = instance_->fuel_consumed();
  if (u.fuel_limit > 0 && u.fuel_consumed > u.fuel_limit) u.fuel_consumed = u.fuel_limit;
  u.memory_bytes = instance_->memory().size();
  return u;
}

}  // namespace embedded
}  // namespace sandbox

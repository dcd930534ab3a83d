#include "embedded/guest.h"

#include <cstring>
#include <limits>
#include <stdexcept>

#include "embedded/guest_abi.h"

namespace sandbox::embedded {
namespace {

template <class Sig>
std::optional<wasm::Function<Sig>> optional_export(const wasm::Module& module,
                                                   std::string_view name) {
  if (!module.find_function(name)) return std::nullopt;
  return module.function<Sig>(name);
}

}  // namespace

GuestExports GuestExports::resolve(const wasm::Module& module) {
  GuestExports e;
  e.alloc = module.function<std::uint32_t(std::uint32_t)>("alloc");
  e.dealloc = module.function<void(std::uint32_t)>("dealloc");
  e.session_init = module.function<std::uint32_t()>("session_init");
  e.eval = module.function<std::uint32_t(std::uint32_t, std::uint32_t)>("eval");
  e.result_ptr = module.function<std::uint32_t()>("result_ptr");
  e.result_len = module.function<std::uint32_t()>("result_len");
  e.initialize = optional_export<void()>(module, "_initialize");
  e.after_restore = optional_export<void()>(module, "after_restore");
  return e;
}

EngineConfig::EngineConfig(const wasm::Module& m, EmbeddedLanguage l)
    : module(m), language(std::move(l)), exports(GuestExports::resolve(module)) {
  if (language.pooled_memories > 0) {
    pool = std::make_unique<wasm::MemoryPool>(language.pooled_memories);
  }
}

GuestInstance::GuestInstance(std::shared_ptr<const EngineConfig> config, WasiOptions wasi)
    : config_(std::move(config)), wasi_(std::make_unique<WasiHost>(std::move(wasi))) {
  instance_ = wasm::Instance::create(
      config_->module,
      wasm::InstanceOptions{
          .imports = {{"wasi_snapshot_preview1", wasi_->import_context()}},
          .memory_limit_bytes = config_->language.limits.memory_bytes,
          .pool = config_->pool.get(),
      });
  wasi_->attach_memory(instance_->rt_memory());
  if (config_->language.call_timeout.count() > 0) {
    instance_->set_call_timeout(config_->language.call_timeout);
  }
}

GuestInstance::~GuestInstance() = default;

void GuestInstance::reset_fuel() {
  if (!config_->module.metered()) return;
  const std::uint64_t fuel = config_->language.limits.fuel;
  instance_->set_fuel(fuel > 0 ? fuel : static_cast<std::uint64_t>(
                                             std::numeric_limits<std::int64_t>::max()));
}

Usage GuestInstance::usage() const {
  Usage u;
  u.fuel_limit = config_->language.limits.fuel;
  if (config_->module.metered()) u.fuel_consumed = instance_->fuel_consumed();
  if (u.fuel_limit > 0 && u.fuel_consumed > u.fuel_limit) u.fuel_consumed = u.fuel_limit;
  u.memory_bytes = instance_->memory().size();
  return u;
}

void GuestInstance::throw_trap(const wasm::Trap& trap) {
  if (trap.kind == wasm::TrapKind::kOutputLimit || wasi_->output_limit_exceeded()) {
    throw ExecutionLimitError("Output limit exceeded");
  }
  if (trap.is_limit()) {
    throw ExecutionLimitError(trap.message.empty()
                                  ? std::string(wasm::trap_kind_message(trap.kind))
                                  : trap.message);
  }
  if (trap.kind == wasm::TrapKind::kExit) {
    throw std::runtime_error("exit with exit code " + std::to_string(trap.exit_code));
  }
  throw std::runtime_error(trap.message.empty() ? std::string(wasm::trap_kind_message(trap.kind))
                                                : trap.message);
}

template <class R>
R GuestInstance::checked(wasm::CallResult<R> result) {
  if (!result.ok()) throw_trap(result.trap);
  return result.value;
}

void GuestInstance::checked(wasm::CallResult<void> result) {
  if (!result.ok()) throw_trap(result.trap);
}

std::string GuestInstance::read_reply() {
  const GuestExports& x = config_->exports;
  const std::uint32_t len = checked(x.result_len(*instance_));
  if (len > kMaxReplyBytes) throw ExecutionLimitError("Result limit exceeded");
  const std::uint32_t ptr = checked(x.result_ptr(*instance_));
  const auto memory = instance_->memory();
  if (ptr > memory.size() || len > memory.size() - ptr) {
    throw std::runtime_error("Interpreter response is outside its memory");
  }
  return std::string(reinterpret_cast<const char*>(memory.data()) + ptr, len);
}

void GuestInstance::initialize() {
  const GuestExports& x = config_->exports;
  if (x.initialize) checked((*x.initialize)(*instance_));
  const std::uint32_t status = checked(x.session_init(*instance_));
  if (status != 0) {
    std::string message = read_reply();
    if (message.empty()) message = "status " + std::to_string(status);
    throw std::runtime_error("Interpreter initialization failed: " + message);
  }
}

void GuestInstance::after_restore() {
  const GuestExports& x = config_->exports;
  if (x.after_restore) checked((*x.after_restore)(*instance_));
}

GuestReply GuestInstance::eval_request(const std::vector<std::uint8_t>& request) {
  const GuestExports& x = config_->exports;
  const auto len = static_cast<std::uint32_t>(request.size());
  const std::uint32_t ptr = checked(x.alloc(*instance_, len));
  {
    const auto memory = instance_->memory();
    if (ptr == 0 || ptr > memory.size() || len > memory.size() - ptr) {
      throw std::runtime_error("Interpreter could not allocate a " + std::to_string(len) +
                               "-byte request");
    }
    if (len > 0) std::memcpy(memory.data() + ptr, request.data(), len);
  }
  const std::uint32_t status = checked(x.eval(*instance_, ptr, len));
  checked(x.dealloc(*instance_, ptr));
  const std::string reply = read_reply();
  if (status == 0 || status == 1) return parse_reply(status, reply);
  if (status == 2) {
    throw std::runtime_error(reply.empty() ? "Interpreter internal error" : reply);
  }
  throw std::runtime_error("Interpreter returned unknown status " + std::to_string(status));
}

GuestReply GuestInstance::eval(std::string_view code) {
  return eval_request(encode_request(code, cwd_, {}));
}

}  // namespace sandbox::embedded

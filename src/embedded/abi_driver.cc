#include "embedded/abi_driver.h"

#include <cstring>
#include <stdexcept>

#include "embedded/guest.h"
#include "embedded/guest_abi.h"

namespace sandbox::embedded {
namespace {

// The guest as after_init sees it: the same instance, plus eval() through the ABI.
class AbiGuestView final : public EmbeddedGuest {
 public:
  AbiGuestView(const AbiDriver& driver, EmbeddedGuest& guest) : driver_(driver), guest_(guest) {}

  wasm::Instance& instance() override { return guest_.instance(); }
  WasiHost& wasi() override { return guest_.wasi(); }
  GuestExtension* extension() override { return guest_.extension(); }
  std::uint64_t handle() const override { return guest_.handle(); }
  void set_handle(std::uint64_t handle) override { guest_.set_handle(handle); }
  [[noreturn]] void throw_trap(const wasm::Trap& trap) override {
    guest_.throw_trap(trap);
    throw std::logic_error("throw_trap() returned");  // unreachable: it is [[noreturn]]
  }
  GuestReply eval(std::string_view code) override {
    return driver_.eval_request(guest_, encode_request(code, {}, {}));
  }

 private:
  const AbiDriver& driver_;
  EmbeddedGuest& guest_;
};

}  // namespace

AbiExports AbiExports::resolve(const wasm::Module& module) {
  AbiExports e;
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

AbiDriver::AbiDriver(const wasm::Module& module, std::function<void(EmbeddedGuest&)> after_init,
                     std::string fingerprint)
    : exports_(AbiExports::resolve(module)),
      after_init_(std::move(after_init)),
      fingerprint_(std::move(fingerprint)) {}

std::string AbiDriver::read_reply(EmbeddedGuest& guest) const {
  const std::uint32_t len = guest.call(exports_.result_len);
  if (len > kMaxReplyBytes) throw ExecutionLimitError("Result limit exceeded");
  const std::uint32_t ptr = guest.call(exports_.result_ptr);
  const auto memory = guest.instance().memory();
  if (ptr > memory.size() || len > memory.size() - ptr) {
    throw std::runtime_error("Interpreter response is outside its memory");
  }
  return std::string(reinterpret_cast<const char*>(memory.data()) + ptr, len);
}

void AbiDriver::boot(EmbeddedGuest& guest) const {
  if (exports_.initialize) guest.call(*exports_.initialize);
  const std::uint32_t status = guest.call(exports_.session_init);
  if (status != 0) {
    std::string message = read_reply(guest);
    if (message.empty()) message = "status " + std::to_string(status);
    throw std::runtime_error("Interpreter initialization failed: " + message);
  }
  if (after_init_) {
    AbiGuestView view(*this, guest);
    after_init_(view);
  }
  // A warm-up re-seed: whatever it initialises lazily (CPython imports `random` and grows its
  // heap) lands in the image instead of in every copy, where a grown memory would also keep
  // the instance from being reused.
  after_copy(guest);
}

void AbiDriver::after_copy(EmbeddedGuest& guest) const {
  if (exports_.after_restore) guest.call(*exports_.after_restore);
}

GuestReply AbiDriver::execute(EmbeddedGuest& guest, const DriverRequest& request) const {
  return eval_request(guest, encode_request(request.code, request.cwd, request.env));
}

GuestReply AbiDriver::eval_request(EmbeddedGuest& guest,
                                   const std::vector<std::uint8_t>& request) const {
  const auto len = static_cast<std::uint32_t>(request.size());
  const std::uint32_t ptr = guest.call(exports_.alloc, len);
  {
    const auto memory = guest.instance().memory();
    if (ptr == 0 || ptr > memory.size() || len > memory.size() - ptr) {
      throw std::runtime_error("Interpreter could not allocate a " + std::to_string(len) +
                               "-byte request");
    }
    if (len > 0) std::memcpy(memory.data() + ptr, request.data(), len);
  }
  const std::uint32_t status = guest.call(exports_.eval, ptr, len);
  guest.call(exports_.dealloc, ptr);
  const std::string reply = read_reply(guest);
  if (status == 0 || status == 1) return parse_reply(status, reply);
  if (status == 2) {
    throw std::runtime_error(reply.empty() ? "Interpreter internal error" : reply);
  }
  throw std::runtime_error("Interpreter returned unknown status " + std::to_string(status));
}

}  // namespace sandbox::embedded

// The wasmify session host (<sandbox/wasmify.h>, docs/wasmify-abi.md): the wasmify calls, and an
// EmbeddedDriver around a language's WasmifyDriver, so that make_embedded_engine() supplies the
// image, sessions, snapshots and limits.
#include <cstring>
#include <limits>
#include <stdexcept>

#include <sandbox/wasmify.h>

#include "embedded/guest.h"
#include "embedded/sha256.h"

namespace sandbox {
namespace {

// The EmbeddedDriver of one wasmify engine. Immutable after construction.
class WasmifyEmbeddedDriver final : public EmbeddedDriver {
 public:
  WasmifyEmbeddedDriver(const wasm::Module& module, WasmifyDriver driver)
      : exports_(module),
        init_(exports_.method(driver.init_method)),
        eval_(exports_.method(driver.eval_method)),
        driver_(std::move(driver)) {}

  // docs/wasmify-abi.md#boot-image-and-restore (B1).
  void boot(EmbeddedGuest& guest) const override {
    exports_.initialize(guest);
    const wasmify::Response response =
        exports_.invoke(guest, init_, {{1, std::string(kWasmifyStdlibDir)}});
    const std::optional<std::uint64_t> handle = response.integer(1);
    if (!handle || *handle == 0 ||
        *handle > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      throw std::runtime_error("Interpreter initialization failed");
    }
    guest.set_handle(*handle);
    if (!driver_.boot_script.empty()) (void)evaluate(guest, driver_.boot_script);
    // A warm-up, as the built-in ABI does: what the after-copy script initialises lazily lands
    // in the image instead of in every copy.
    after_copy(guest);
  }

  // B3: on every copy, with the handle already in place.
  void after_copy(EmbeddedGuest& guest) const override {
    if (!driver_.after_copy_script.empty()) (void)evaluate(guest, driver_.after_copy_script);
  }

  // docs/wasmify-abi.md#the-driver (D2).
  GuestReply execute(EmbeddedGuest& guest, const DriverRequest& request) const override {
    const std::string value = evaluate(guest, driver_.phrase_execute(request));
    if (driver_.read_execute) return driver_.read_execute(value);
    GuestReply reply = parse_guest_reply(0, value);
    if (reply.error) reply.status = 1;
    return reply;
  }

  // D4: the method ids, both scripts and the author's fingerprint.
  std::string fingerprint() const override {
    const auto part = [](std::string_view name, std::string_view text) {
      return std::string(name) + " " + std::to_string(text.size()) + "\n" + std::string(text) +
             "\n";
    };
    return embedded::sha256_hex(
        part("wasmify init", driver_.init_method) + part("eval", driver_.eval_method) +
        part("boot", driver_.boot_script) + part("after_copy", driver_.after_copy_script) +
        part("driver", driver_.fingerprint));
  }

 private:
  // D1: one evaluation through the eval method; its output goes to the WASI capture.
  std::string evaluate(EmbeddedGuest& guest, std::string_view code) const {
    const wasmify::Response response = exports_.invoke(
        guest, eval_, {{1, static_cast<std::int64_t>(guest.handle())}, {2, std::string(code)}});
    const WasmifyEval eval = driver_.read_eval(response);
    if (!eval.stdout_text.empty()) guest.wasi().capture(OutputStream::kStdout, eval.stdout_text);
    if (!eval.stderr_text.empty()) guest.wasi().capture(OutputStream::kStderr, eval.stderr_text);
    if (!eval.ok) {
      throw std::runtime_error(eval.error.empty() ? "Interpreter evaluation failed" : eval.error);
    }
    return eval.value;
  }

  WasmifyExports exports_;
  WasmifyMethod init_;
  WasmifyMethod eval_;
  WasmifyDriver driver_;
};

}  // namespace

WasmifyExports::WasmifyExports(const wasm::Module& module)
    : module_(module),
      alloc_(module.function<std::uint32_t(std::uint32_t)>("wasm_alloc")),
      free_(module.function<void(std::uint32_t)>("wasm_free")),
      wasm_init_(module.function<void()>("wasm_init")),
      initialize_(embedded::optional_export<void()>(module, "_initialize")) {
  if (!module.has_memory()) {
    throw wasm::WasmError("A wasmify module must export its memory");
  }
}

WasmifyMethod WasmifyExports::method(std::string_view name) const {
  return module_.function<std::uint64_t(std::uint32_t, std::uint32_t)>(name);
}

void WasmifyExports::initialize(EmbeddedGuest& guest) const {
  if (initialize_) guest.call(*initialize_);
  guest.call(wasm_init_);
}

wasmify::Response WasmifyExports::invoke(EmbeddedGuest& guest, const WasmifyMethod& method,
                                         const std::vector<wasmify::RequestField>& fields) const {
  // C1: the request, in a buffer of the guest's.
  const std::vector<std::uint8_t> request = wasmify::encode_request(fields);
  if (request.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw std::runtime_error("Interpreter request too large");
  }
  const auto len = static_cast<std::uint32_t>(request.size());
  const std::uint32_t ptr = guest.call(alloc_, len);
  if (len > 0) {
    if (ptr == 0) {
      throw std::runtime_error("Interpreter could not allocate a " + std::to_string(len) +
                               "-byte request");
    }
    std::memcpy(guest.bytes(ptr, len).data(), request.data(), len);  // the view of now (C6)
  }
  // C2, C3.
  const std::uint64_t packed = guest.call(method, ptr, len);
  guest.call(free_, ptr);
  const auto out_ptr = static_cast<std::uint32_t>(packed >> 32);
  const auto out_len = static_cast<std::uint32_t>(packed & 0xffff'ffffU);
  // C4: refused before it is read.
  if (out_len > kWasmifyMaxResponseBytes) {
    throw ExecutionLimitError("Interpreter response limit exceeded");
  }
  // C5: copied out (the view taken after the calls above), freed, then decoded.
  std::vector<std::uint8_t> response;
  if (out_len > 0) {
    const auto bytes = guest.bytes(out_ptr, out_len);
    response.assign(bytes.begin(), bytes.end());
  }
  if (out_ptr != 0) guest.call(free_, out_ptr);
  return wasmify::decode_response(response);
}

std::shared_ptr<const EmbeddedDriver> make_wasmify_driver(const wasm::Module& module,
                                                          WasmifyDriver driver) {
  if (driver.init_method.empty() || driver.eval_method.empty()) {
    throw std::invalid_argument("A wasmify driver needs its init and eval method ids");
  }
  if (!driver.read_eval || !driver.phrase_execute) {
    throw std::invalid_argument("A wasmify driver needs read_eval and phrase_execute");
  }
  return std::make_shared<WasmifyEmbeddedDriver>(module, std::move(driver));
}

Engine make_wasmify_engine(const wasm::Module& module, EmbeddedLanguage language,
                           WasmifyDriver driver) {
  if (language.driver) {
    throw std::invalid_argument("A wasmify engine's driver is its WasmifyDriver");
  }
  language.driver = make_wasmify_driver(module, std::move(driver));
  return make_embedded_engine(module, std::move(language));
}

}  // namespace sandbox

// AbiDriver: the built-in EmbeddedDriver for modules that implement our reactor ABI
// (engines/common/sandbox_guest.h; the exports are listed in <sandbox/embedded.h>).
//
//   boot        `_initialize` (when exported), session_init (a non-zero status throws
//               "Interpreter initialization failed: <message>"), the language's after_init hook
//               with a view of the guest whose eval() sends one request, then one warm-up
//               `after_restore` (when exported), so that what re-seeding initialises lazily is
//               in the image.
//   after_copy  `after_restore` (when exported): the guest re-seeds its random generators.
//   execute     one eval request: 'c' code, 'w' cwd (when non-empty), 'e' per env var.
//
// A reply status of 2 throws std::runtime_error with the guest's message; any status other than
// 0, 1, 2 throws "Interpreter returned unknown status N".
//
// Thread-safety: immutable after construction.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <sandbox/embedded.h>

namespace sandbox::embedded {

// The ABI exports, resolved and signature-checked once per engine.
struct AbiExports {
  wasm::Function<std::uint32_t(std::uint32_t)> alloc;
  wasm::Function<void(std::uint32_t)> dealloc;
  wasm::Function<std::uint32_t()> session_init;
  wasm::Function<std::uint32_t(std::uint32_t, std::uint32_t)> eval;
  wasm::Function<std::uint32_t()> result_ptr;
  wasm::Function<std::uint32_t()> result_len;
  std::optional<wasm::Function<void()>> initialize;
  std::optional<wasm::Function<void()>> after_restore;

  // Throws wasm::WasmError when a required export is missing or mistyped.
  static AbiExports resolve(const wasm::Module& module);
};

class AbiDriver final : public EmbeddedDriver {
 public:
  // Throws wasm::WasmError (see AbiExports::resolve).
  AbiDriver(const wasm::Module& module, std::function<void(EmbeddedGuest&)> after_init,
            std::string fingerprint);

  void boot(EmbeddedGuest& guest) const override;
  void after_copy(EmbeddedGuest& guest) const override;
  GuestReply execute(EmbeddedGuest& guest, const DriverRequest& request) const override;
  std::string fingerprint() const override { return fingerprint_; }

  // One request (already encoded) through alloc/eval/dealloc, and its parsed reply.
  GuestReply eval_request(EmbeddedGuest& guest, const std::vector<std::uint8_t>& request) const;

 private:
  // The bytes at result_ptr()/result_len().
  std::string read_reply(EmbeddedGuest& guest) const;

  AbiExports exports_;
  std::function<void(EmbeddedGuest&)> after_init_;
  std::string fingerprint_;
};

}  // namespace sandbox::embedded

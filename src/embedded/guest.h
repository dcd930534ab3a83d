// GuestInstance: one instance of an embedded interpreter with its WASI host, and the ABI calls
// (initialize, eval, after_restore) made through it. Used by run() and by sessions.
//
// Every guest call that does not return normally is turned into an exception here: a limit
// trap into ExecutionLimitError (fuel, deadline, output), anything else into
// std::runtime_error. After such an exception the instance must not be used again.
#pragma once

#include <sandbox/embedded.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sandbox::embedded {

// The ABI exports, resolved and signature-checked once per engine.
struct GuestExports {
  wasm::Function<std::uint32_t(std::uint32_t)> alloc;
  wasm::Function<void(std::uint32_t)> dealloc;
  wasm::Function<std::uint32_t()> session_init;
  wasm::Function<std::uint32_t(std::uint32_t, std::uint32_t)> eval;
  wasm::Function<std::uint32_t()> result_ptr;
  wasm::Function<std::uint32_t()> result_len;
  std::optional<wasm::Function<void()>> initialize;
  std::optional<wasm::Function<void()>> after_restore;

  // Throws wasm::WasmError when a required export is missing or mistyped.
  static GuestExports resolve(const wasm::Module& module);
};

// What every run and session of one engine shares (immutable after construction).
struct EngineConfig {
  EngineConfig(const wasm::Module& m, EmbeddedLanguage l);
  wasm::Module module;
  EmbeddedLanguage language;
  GuestExports exports;
  std::unique_ptr<wasm::MemoryPool> pool;  // null when pooled_memories == 0
};

class GuestInstance final : public EmbeddedGuest {
 public:
  // Instantiates (nothing runs yet). `wasi` describes the mounts and environment.
  GuestInstance(std::shared_ptr<const EngineConfig> config, WasiOptions wasi);
  ~GuestInstance() override;

  // Sets the fuel for the next calls: the language's budget (or unlimited when it is 0).
  void reset_fuel();
  // _initialize (when exported) then session_init; throws "Interpreter initialization failed".
  void initialize();
  // Calls after_restore when exported.
  void after_restore();
  // Runs one request; see EmbeddedGuest::eval for what throws.
  GuestReply eval_request(const std::vector<std::uint8_t>& request);

  GuestReply eval(std::string_view code) override;
  WasiHost& wasi() override { return *wasi_; }
  wasm::Instance& instance() override { return *instance_; }

  const std::string& cwd() const { return cwd_; }
  void set_cwd(std::string cwd) { cwd_ = std::move(cwd); }
  // Fuel consumed since reset_fuel() (the budget itself after exhaustion), the budget, and the
  // current linear memory size.
  Usage usage() const;

 private:
  template <class R>
  R checked(wasm::CallResult<R> result);
  void checked(wasm::CallResult<void> result);
  [[noreturn]] void throw_trap(const wasm::Trap& trap);
  // The bytes at result_ptr()/result_len().
  std::string read_reply();

  std::shared_ptr<const EngineConfig> config_;
  std::unique_ptr<WasiHost> wasi_;
  std::unique_ptr<wasm::Instance> instance_;
  std::string cwd_;
};

}  // namespace sandbox::embedded

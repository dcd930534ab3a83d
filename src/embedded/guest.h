// Guest: one instance of an embedded interpreter's module with its WASI host and the driver's
// extension — the host's implementation of EmbeddedGuest (<sandbox/embedded.h>), plus the fuel
// and usage bookkeeping the host needs around it.
//
// Thread-safety: a Guest is used by one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include <sandbox/embedded.h>

namespace sandbox::embedded {

// The export `name` with signature Sig, or nullopt when the module has no such export. Throws
// wasm::WasmError when it exists with another signature.
template <class Sig>
std::optional<wasm::Function<Sig>> optional_export(const wasm::Module& module,
                                                   std::string_view name) {
  if (!module.find_function(name)) return std::nullopt;
  return module.function<Sig>(name);
}

struct GuestConfig {
  const wasm::Module* module = nullptr;      // borrowed; outlives the guest
  const EmbeddedDriver* driver = nullptr;    // borrowed; outlives the guest
  std::uint64_t fuel = 0;                    // per call; 0 = unlimited
  std::uint64_t memory_limit_bytes = 0;      // 0 = the module's maximum
  std::chrono::nanoseconds call_timeout{0};  // 0 = none
  wasm::MemoryPool* pool = nullptr;          // borrowed; may be null
  // The image or a snapshot replaces the whole memory before the guest runs: instantiation
  // skips the data segments (wasm::InstanceOptions::skip_data_segments).
  bool skip_data_segments = false;
};

class Guest final : public EmbeddedGuest {
 public:
  // Instantiates the module (nothing runs; the instance is kFresh). Throws wasm::WasmError, and
  // std::invalid_argument without a module or driver.
  Guest(const GuestConfig& config, WasiOptions wasi);
  // The instance goes first: its memory may return to the pool, and nothing may call into the
  // WASI host or the extension afterwards.
  ~Guest() override;
  Guest(const Guest&) = delete;
  Guest& operator=(const Guest&) = delete;

  wasm::Instance& instance() override { return *instance_; }
  const wasm::Instance& instance() const { return *instance_; }
  WasiHost& wasi() override { return *wasi_; }
  const WasiHost& wasi() const { return *wasi_; }
  GuestExtension* extension() override { return extension_.get(); }
  std::uint64_t handle() const override { return handle_; }
  void set_handle(std::uint64_t handle) override { handle_ = handle; }
  // Throws std::logic_error: only the built-in driver's view of a guest can eval.
  GuestReply eval(std::string_view code) override;
  [[noreturn]] void throw_trap(const wasm::Trap& trap) override;

  // Whether nothing host-side would be lost by a memory image: no open guest file descriptors
  // and an empty extension.
  bool host_state_empty() const;
  // True when the extension (if any) is empty.
  bool extension_empty() const { return !extension_ || extension_->empty(); }

  // Gives the next calls the configured fuel budget (unlimited when 0) or `budget`.
  void reset_fuel();
  void set_fuel(std::uint64_t budget);
  // Fuel consumed since the last reset (capped at the budget), the budget, the memory size.
  Usage usage() const;

 private:
  GuestConfig config_;
  std::unique_ptr<WasiHost> wasi_;
  std::unique_ptr<GuestExtension> extension_;
  std::unique_ptr<wasm::Instance> instance_;
  std::uint64_t budget_ = 0;
  std::uint64_t handle_ = 0;
};

// Hands a call's OutputObserver (engine.h) to the guest's WASI host for the scope of the call,
// and takes it back however the call ends, so a later call on a reused instance never reaches a
// caller that is gone.
class OutputObserverScope {
 public:
  OutputObserverScope(WasiHost& wasi, const OutputObserver& observer) : wasi_(wasi) {
    wasi_.set_output_observer(observer);
  }
  ~OutputObserverScope() { wasi_.set_output_observer({}); }
  OutputObserverScope(const OutputObserverScope&) = delete;
  OutputObserverScope& operator=(const OutputObserverScope&) = delete;

 private:
  WasiHost& wasi_;
};

}  // namespace sandbox::embedded

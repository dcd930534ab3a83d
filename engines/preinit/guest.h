// Guest: one instance of a prebuilt WASI interpreter module with its WASI host and the
// language's extra import state, plus the checked calls and memory accessors a language driver
// uses to talk to it.
//
// Every guest call that does not return normally throws: a limit trap (fuel, deadline, output)
// as ExecutionLimitError, any other trap as GuestTrap (its message possibly rewritten by the
// driver's describe_trap). After such a throw the instance is invalid (wasm.h's state machine)
// and must not be called again; only its logs and usage may still be read.
//
// Thread-safety: a Guest is used by one thread at a time.
#pragma once

#include <sandbox/engine.h>
#include <sandbox/wasi.h>
#include <sandbox/wasm.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace sandbox::preinit {

// A guest call ended in a trap that is not a resource limit (an unsupported import, proc_exit,
// a memory fault, ...). The instance is invalid.
class GuestTrap : public std::runtime_error {
 public:
  GuestTrap(wasm::Trap trap, const std::string& message)
      : std::runtime_error(message), trap_(std::move(trap)) {}
  const wasm::Trap& trap() const { return trap_; }

 private:
  wasm::Trap trap_;
};

// Host-side state behind imports other than WASI (e.g. Ruby's canonical-ABI handle table), one
// per instance.
class GuestExtension {
 public:
  virtual ~GuestExtension() = default;
  // The contexts of the import modules this extension implements ({"canonical_abi", this}).
  virtual std::vector<wasm::ImportContext> import_contexts() = 0;
  // True when the extension holds nothing that a linear-memory snapshot would not carry. It must
  // be true between calls: images and snapshots are refused otherwise.
  virtual bool empty() const = 0;
};

class Driver;

struct GuestConfig {
  const wasm::Module* module = nullptr;  // borrowed; outlives the guest
  const Driver* driver = nullptr;        // borrowed; outlives the guest
  std::uint64_t fuel = 0;                // per call; 0 = unlimited
  std::uint64_t memory_limit_bytes = 0;  // 0 = the module's maximum
  std::chrono::nanoseconds call_timeout{0};
  wasm::MemoryPool* pool = nullptr;      // borrowed; may be null
};

class Guest {
 public:
  // Instantiates the module (nothing runs; the instance is kFresh). Throws wasm::WasmError.
  Guest(const GuestConfig& config, WasiOptions wasi);
  ~Guest();
  Guest(const Guest&) = delete;
  Guest& operator=(const Guest&) = delete;

  wasm::Instance& instance() { return *instance_; }
  const wasm::Instance& instance() const { return *instance_; }
  WasiHost& wasi() { return *wasi_; }
  const WasiHost& wasi() const { return *wasi_; }
  // The driver's extension (nullptr when it has none).
  GuestExtension* extension() { return extension_.get(); }
  const GuestExtension* extension() const { return extension_.get(); }
  // Whether nothing host-side would be lost by a memory snapshot: no open guest file
  // descriptors and an empty extension.
  bool host_state_empty() const;

  // Calls `f` on the instance; a trap throws (see above).
  template <class R, class... A, class... Args>
  R call(const wasm::Function<R(A...)>& f, Args... args) {
    wasm::CallResult<R> result = f(*instance_, static_cast<A>(args)...);
    if (!result.ok()) throw_trap(result.trap);
    if constexpr (!std::is_void_v<R>) return result.value;
  }

  // `len` bytes of linear memory at `ptr`; throws std::runtime_error when the range is outside
  // the memory (a guest returned a bad pointer).
  std::span<std::uint8_t> bytes(std::uint32_t ptr, std::uint32_t len);
  std::uint32_t read_u32(std::uint32_t ptr);
  void write_u32(std::uint32_t ptr, std::uint32_t value);
  std::string read_string(std::uint32_t ptr, std::uint32_t len);
  // The NUL-terminated string at `ptr`, at most `max` bytes (longer: an error).
  std::string read_c_string(std::uint32_t ptr, std::uint32_t max);

  // Gives the next calls the configured fuel budget (unlimited when 0) or `budget`.
  void reset_fuel();
  void set_fuel(std::uint64_t budget);
  // Fuel consumed since the last reset (capped at the budget), the budget, the memory size.
  Usage usage() const;

 private:
  [[noreturn]] void throw_trap(const wasm::Trap& trap);

  GuestConfig config_;
  std::unique_ptr<WasiHost> wasi_;
  std::unique_ptr<GuestExtension> extension_;
  std::unique_ptr<wasm::Instance> instance_;
  std::uint64_t budget_ = 0;
};

}  // namespace sandbox::preinit

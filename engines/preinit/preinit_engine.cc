#include "preinit_engine.h"

#include <openssl/sha.h>

#include <stdexcept>

#include "embedded/guest_abi.h"
#include "engine_state.h"
#include "session.h"

namespace sandbox::preinit {
namespace {

std::string sha256_hex(std::string_view text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : digest) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

// One stateless execution on an instance in the image's state. Traps and internal errors throw
// (the kit reports them with empty logs); the guest's own errors are in the outcome. The
// instance is kept for a later run when it can be reset to the image.
EngineOutcome run_once(EngineState& state, const ExecutionRequest& request) {
  const auto image = state.image();
  std::unique_ptr<StatelessGuest> stateless = state.take_guest(*image);
  Guest& guest = stateless->guest;
  guest.reset_fuel();
  GuestReply reply = state.language.driver->execute(
      guest, Request{request.code, kWorkspaceRoot, request.env_vars, /*reseed=*/true});
  if (guest.extension() != nullptr && !guest.extension()->empty()) {
    throw std::logic_error("The driver left host-side handles after a call");
  }
  EngineOutcome out;
  out.logs = guest.wasi().logs();
  out.results = std::move(reply.results);
  out.error = std::move(reply.error);
  out.usage = guest.usage();
  state.give_back(std::move(stateless), *image);
  embedded::check_result_limit(out.results);
  return out;
}

}  // namespace

EngineState::EngineState(const wasm::Module& m, PreinitLanguage l)
    : module(m), language(std::move(l)) {
  build = sha256_hex(std::string(module.wasm_sha256()) + "\n" + language.driver->fingerprint());
  if (language.pooled_memories > 0) {
    pool = std::make_unique<wasm::MemoryPool>(language.pooled_memories);
  }
}

GuestConfig EngineState::run_config() const {
  return GuestConfig{
      .module = &module,
      .driver = language.driver.get(),
      .fuel = language.limits.fuel,
      .memory_limit_bytes = language.limits.memory_bytes,
      .call_timeout = language.call_timeout,
      .pool = pool.get(),
  };
}

std::shared_ptr<const Image> EngineState::image() {
  std::lock_guard<std::mutex> lock(image_mu_);
  if (!image_) {
    GuestConfig config = run_config();
    config.call_timeout = language.boot_timeout;
    image_ = capture_image(config, language.boot_fuel);
  }
  return image_;
}

StatelessGuest::StatelessGuest(const GuestConfig& config, const Clock& clock)
    : scratch(clock), guest(config, WasiOptions{.workspace = &scratch}) {
  scratch.set_disabled(true);
}

std::unique_ptr<StatelessGuest> EngineState::take_guest(const Image& image) {
  {
    std::lock_guard<std::mutex> lock(idle_mu_);
    if (!idle_.empty()) {
      std::unique_ptr<StatelessGuest> guest = std::move(idle_.back());
      idle_.pop_back();
      return guest;
    }
  }
  auto guest = std::make_unique<StatelessGuest>(run_config(), clock);
  apply_image(image, guest->guest, /*track_writes=*/false);
  return guest;
}

void EngineState::give_back(std::unique_ptr<StatelessGuest> guest, const Image& image) {
  {
    std::lock_guard<std::mutex> lock(idle_mu_);
    if (idle_.size() >= language.idle_instances) return;
  }
  if (!reset_to_image(image, guest->guest)) return;
  std::lock_guard<std::mutex> lock(idle_mu_);
  if (idle_.size() < language.idle_instances) idle_.push_back(std::move(guest));
}

PreinitEngine::PreinitEngine(const wasm::Module& module, PreinitLanguage language) {
  if (language.language.empty() || language.engine_name.empty() || !language.driver) {
    throw std::invalid_argument("A preinit engine needs a language, an engine name and a driver");
  }
  state_ = std::make_shared<EngineState>(module, std::move(language));
}

Engine PreinitEngine::engine() const {
  const PreinitLanguage& lang = state_->language;
  Engine engine;
  engine.language = lang.language;
  engine.engine_name = lang.engine_name;
  engine.build = state_->build;
  engine.limits = lang.limits;
  if (engine.limits.memory_bytes == 0) {
    engine.limits.memory_bytes = std::uint64_t{state_->module.max_pages()} * kWasmPageBytes;
  }
  std::shared_ptr<EngineState> state = state_;
  engine.run = [state](const ExecutionRequest& request) { return run_once(*state, request); };
  engine.sessions = Sessions{
      .boot = [state](const SessionOptions& options) { return PreinitSession::boot(state, options); },
      .restore =
          [state](const SessionOptions& options, const SnapshotSource& source) {
            return PreinitSession::restore(state, options, source);
          },
  };
  return engine;
}

ImageStats PreinitEngine::image_stats() const { return state_->image()->stats; }

Engine make_preinit_engine(const wasm::Module& module, PreinitLanguage language) {
  return PreinitEngine(module, std::move(language)).engine();
}

}  // namespace sandbox::preinit

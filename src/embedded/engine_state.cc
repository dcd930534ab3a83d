#include "embedded/engine_state.h"

#include "embedded/sha256.h"
#include "snapshot/page_hash.h"

namespace sandbox::embedded {

PooledGuest::PooledGuest(const GuestConfig& config, std::shared_ptr<const StdlibTree> stdlib,
                         const Clock& clock)
    : scratch(clock),
      guest(config, WasiOptions{.stdlib = std::move(stdlib), .workspace = &scratch}) {
  scratch.set_disabled(true);
}

EngineState::EngineState(const wasm::Module& m, EmbeddedLanguage l,
                         std::shared_ptr<const EmbeddedDriver> d)
    : module(m), language(std::move(l)), driver(std::move(d)) {
  if (!language.build.empty()) {
    build = language.build;
  } else if (const std::string fingerprint = driver->fingerprint(); !fingerprint.empty()) {
    build = sha256_hex(std::string(module.wasm_sha256()) + "\n" + fingerprint);
  } else {
    build = std::string(module.wasm_sha256());
  }
  if (language.pooled_memories > 0) {
    pool = std::make_unique<wasm::MemoryPool>(language.pooled_memories);
  }
}

GuestConfig EngineState::run_config() const {
  return GuestConfig{
      .module = &module,
      .driver = driver.get(),
      .fuel = language.limits.fuel,
      .memory_limit_bytes = language.limits.memory_bytes,
      .call_timeout = language.call_timeout,
      .pool = pool.get(),
  };
}

GuestConfig EngineState::placed_config() const {
  GuestConfig config = run_config();
  config.skip_data_segments = true;
  return config;
}

std::shared_ptr<const Image> EngineState::image() {
  std::lock_guard<std::mutex> lock(image_mu_);
  if (!image_) {
    GuestConfig config = run_config();
    config.call_timeout = language.boot_timeout;
    image_ = capture_image(config, language.stdlib, language.boot_fuel);
  }
  return image_;
}

std::shared_ptr<const SnapshotBase> EngineState::snapshot_base() {
  const auto first = image();  // throws on a failed capture; retried next time
  std::lock_guard<std::mutex> lock(base_mu_);
  if (base_decided_) return base_;
  GuestConfig config = run_config();
  config.call_timeout = language.boot_timeout;
  bool reproducible = false;
  try {
    // Only compared, never placed: no memfd for it.
    reproducible = same_pages(
        *first, *capture_image(config, language.stdlib, language.boot_fuel, ImageMapping::kCopy));
  } catch (const std::exception&) {
    reproducible = false;  // a boot that fails once is no base to rely on
  }
  if (reproducible) {
    auto base = std::make_shared<SnapshotBase>();
    base->fingerprint = image_fingerprint(*first);
    base->pages = first->pages;
    base->page_bytes = first->page_bytes;
    for (std::uint32_t page = 0; page < first->pages; ++page) {
      if (const std::uint8_t* p = first->page_bytes[page]) {
        if (const auto h = hash_page(
                std::span<const std::uint8_t, kSnapshotPageBytes>(p, kSnapshotPageBytes))) {
          base->page_hashes.emplace(page, *h);
        }
      }
    }
    base->owner = first;
    base_ = std::move(base);
  }
  base_decided_ = true;
  return base_;
}

std::unique_ptr<PooledGuest> EngineState::take_guest(const Image& image) {
  {
    std::lock_guard<std::mutex> lock(idle_mu_);
    if (!idle_.empty()) {
      std::unique_ptr<PooledGuest> guest = std::move(idle_.back());
      idle_.pop_back();
      return guest;
    }
  }
  auto guest = std::make_unique<PooledGuest>(placed_config(), language.stdlib, clock);
  apply_image(image, guest->guest, /*track_writes=*/false);
  return guest;
}

std::size_t EngineState::idle_guests() {
  std::lock_guard<std::mutex> lock(idle_mu_);
  return idle_.size();
}

void EngineState::give_back(std::unique_ptr<PooledGuest> guest, const Image& image) {
  {
    std::lock_guard<std::mutex> lock(idle_mu_);
    if (idle_.size() >= language.idle_instances) return;
  }
  if (!reset_to_image(image, guest->guest)) return;
  std::lock_guard<std::mutex> lock(idle_mu_);
  if (idle_.size() < language.idle_instances) idle_.push_back(std::move(guest));
}

}  // namespace sandbox::embedded

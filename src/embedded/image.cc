#include "embedded/image.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string_view>

#include <sys/mman.h>
#include <unistd.h>

#include <sandbox/clock.h>
#include <sandbox/workspace.h>

#include "embedded/sha256.h"
#include "wasm/memory_image.h"

namespace sandbox::embedded {
namespace {

bool all_zero(const std::uint8_t* p, std::size_t n) {
  // Word-wise: the image scan reads tens of MiB once per process.
  const std::size_t words = n / sizeof(std::uint64_t);
  for (std::size_t i = 0; i < words; ++i) {
    std::uint64_t w;
    std::memcpy(&w, p + i * sizeof w, sizeof w);
    if (w != 0) return false;
  }
  return std::all_of(p + words * sizeof(std::uint64_t), p + n,
                     [](std::uint8_t b) { return b == 0; });
}

// Writes every page of the image into `memory` (its first image.pages pages), whatever they
// hold now.
void write_every_page(const Image& image, std::span<std::uint8_t> memory) {
  std::uint32_t page = 0;
  while (page < image.pages) {
    std::uint8_t* p = memory.data() + std::size_t{page} * kWasmPageBytes;
    if (const std::uint8_t* bytes = image.page_bytes[page]) {
      std::memcpy(p, bytes, kWasmPageBytes);
      ++page;
      continue;
    }
    std::uint32_t end = page + 1;
    while (end < image.pages && image.page_bytes[end] == nullptr) ++end;
    std::memset(p, 0, std::size_t{end - page} * kWasmPageBytes);
    page = end;
  }
}

// Moves a captured image's pages into a sealed memfd and points page_bytes into a read-only view
// of it; leaves the image as it is (copied into instances) when any step fails.
void make_copy_on_write(Image& image, std::span<const std::uint8_t> memory) {
  const std::size_t bytes = std::size_t{image.pages} * kWasmPageBytes;
  if (bytes == 0 || memory.size() < bytes) return;
  const int fd = sandbox_wasm_image_create(memory.data(), bytes);
  if (fd < 0) return;
  void* view = mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
  if (view == MAP_FAILED) {
    close(fd);
    return;
  }
  image.memfd = fd;
  image.view = static_cast<std::uint8_t*>(view);
  for (std::uint32_t page = 0; page < image.pages; ++page) {
    if (image.page_bytes[page] != nullptr) {
      image.page_bytes[page] = image.view + std::size_t{page} * kWasmPageBytes;
    }
  }
  image.data = {};
  image.base = {};
}

}  // namespace

ImageMapping default_image_mapping() {
  const char* value = std::getenv(kImageMappingEnv);
  return value != nullptr && std::string_view(value) == "copy" ? ImageMapping::kCopy
                                                               : ImageMapping::kCopyOnWrite;
}

Image::~Image() {
  if (view != nullptr) munmap(view, std::size_t{pages} * kWasmPageBytes);
  if (memfd >= 0) close(memfd);
}

std::shared_ptr<const Image> capture_image(const GuestConfig& config,
                                           const std::shared_ptr<const StdlibTree>& stdlib,
                                           std::uint64_t boot_fuel, ImageMapping mapping) {
  SystemClock clock;
  Workspace workspace(clock);
  auto image = std::make_shared<Image>();
  {
    // The fixed boot environment (see image.h): the same image in every process.
    const ManualClock image_clock(kImageClockMs);
    auto ticks = std::make_shared<std::uint64_t>(0);
    WasiOptions boot_wasi{.stdlib = stdlib, .workspace = &workspace};
    boot_wasi.clock = &image_clock;
    boot_wasi.monotonic_ns = [ticks] { return *ticks += 1'000; };
    boot_wasi.random_seed = kImageRandomSeed;
    boot_wasi.sequential_inodes = true;
    Guest guest(config, std::move(boot_wasi));
    guest.set_fuel(boot_fuel);
    const auto start = std::chrono::steady_clock::now();
    config.driver->boot(guest);
    image->stats.boot_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    image->stats.boot_fuel = guest.usage().fuel_consumed;
    if (guest.instance().state() != wasm::InstanceState::kReady ||
        guest.wasi().exit_code().has_value()) {
      throw std::runtime_error("The interpreter's boot left it unusable (trapped or exited)");
    }
    if (!guest.host_state_empty()) {
      throw std::runtime_error(
          "The interpreter's boot left host-side state (open files or "
          "extension handles) that an image cannot carry");
    }
    image->globals = guest.instance().save_globals();
    image->handle = guest.handle();

    // Compared with what instantiation alone produces (data segments, zero elsewhere): only the
    // pages that differ need work when the image is applied.
    Guest fresh(config, WasiOptions{.stdlib = stdlib, .workspace = &workspace});
    const auto initial = fresh.instance().memory();
    const auto memory = guest.instance().memory();
    image->pages = static_cast<std::uint32_t>(memory.size() / kWasmPageBytes);
    std::vector<std::size_t> base_offsets;  // per page, into `base`, or npos
    std::vector<std::size_t> data_offsets;  // per page, into `data`, or npos
    constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    base_offsets.assign(image->pages, kNone);
    data_offsets.assign(image->pages, kNone);
    for (std::uint32_t page = 0; page < image->pages; ++page) {
      const std::size_t at = std::size_t{page} * kWasmPageBytes;
      const std::uint8_t* p = memory.data() + at;
      if (all_zero(p, kWasmPageBytes)) {
        if (at < initial.size() && !all_zero(initial.data() + at, kWasmPageBytes)) {
          image->cleared.push_back(page);
        }
        continue;
      }
      if (at < initial.size() && std::memcmp(p, initial.data() + at, kWasmPageBytes) == 0) {
        base_offsets[page] = image->base.size();
        image->base.insert(image->base.end(), p, p + kWasmPageBytes);
        continue;
      }
      if (!image->runs.empty() &&
          image->runs.back().first_page + image->runs.back().pages == page) {
        ++image->runs.back().pages;
      } else {
        image->runs.push_back(Image::Run{page, 1, image->data.size()});
      }
      data_offsets[page] = image->data.size();
      image->data.insert(image->data.end(), p, p + kWasmPageBytes);
    }
    image->page_bytes.assign(image->pages, nullptr);
    for (std::uint32_t page = 0; page < image->pages; ++page) {
      if (data_offsets[page] != kNone) {
        image->page_bytes[page] = image->data.data() + data_offsets[page];
      }
      if (base_offsets[page] != kNone) {
        image->page_bytes[page] = image->base.data() + base_offsets[page];
      }
    }
    image->stats.copied_pages = static_cast<std::uint32_t>(image->data.size() / kWasmPageBytes);
    if (mapping == ImageMapping::kCopyOnWrite) make_copy_on_write(*image, memory);
  }
  image->stats.pages = image->pages;
  image->stats.cleared_pages = static_cast<std::uint32_t>(image->cleared.size());
  return image;
}

bool same_pages(const Image& a, const Image& b) {
  if (a.pages != b.pages || a.handle != b.handle) return false;
  for (std::uint32_t page = 0; page < a.pages; ++page) {
    const std::uint8_t* pa = a.page_bytes[page];
    const std::uint8_t* pb = b.page_bytes[page];
    if ((pa == nullptr) != (pb == nullptr)) return false;
    if (pa != nullptr && std::memcmp(pa, pb, kWasmPageBytes) != 0) return false;
  }
  return true;
}

std::string image_fingerprint(const Image& image) {
  std::string digests = std::to_string(image.pages) + "\n";
  digests.reserve(digests.size() + std::size_t{image.pages} * 65);
  static const std::vector<std::uint8_t> kZeroPage(kWasmPageBytes, 0);
  for (std::uint32_t page = 0; page < image.pages; ++page) {
    const std::uint8_t* p = image.page_bytes[page] ? image.page_bytes[page] : kZeroPage.data();
    digests += sha256_hex(std::string_view(reinterpret_cast<const char*>(p), kWasmPageBytes));
    digests += '\n';
  }
  return sha256_hex(digests);
}

void place_image(const Image& image, wasm::Instance& instance) {
  const auto memory = instance.memory();
  if (memory.size() < std::size_t{image.pages} * kWasmPageBytes) {
    throw std::logic_error("place_image: the memory is smaller than the image");
  }
  if (image.copy_on_write()) {
    const int mapped = sandbox_wasm_map_image(instance.rt_memory(), image.memfd,
                                              std::size_t{image.pages} * kWasmPageBytes);
    if (mapped == 0) return;
    if (mapped == -2) {
      throw std::runtime_error("Mapping the engine image failed and left the memory unusable");
    }
    // The range is anonymous memory again, of unknown contents: copy the whole image.
    write_every_page(image, memory);
    return;
  }
  if (instance.skipped_data_segments()) {
    // The runs and `cleared` are relative to the memory instantiation fills; this one is zero.
    write_every_page(image, memory);
    return;
  }
  for (const Image::Run& run : image.runs) {
    std::memcpy(memory.data() + std::size_t{run.first_page} * kWasmPageBytes,
                image.data.data() + run.offset, std::size_t{run.pages} * kWasmPageBytes);
  }
  for (const std::uint32_t page : image.cleared) {
    std::memset(memory.data() + std::size_t{page} * kWasmPageBytes, 0, kWasmPageBytes);
  }
}

bool maps_image(const Image& image, const wasm::Instance& instance) {
  return image.copy_on_write() && image.pages != 0 &&
         sandbox_wasm_mapped_image_bytes(instance.rt_memory()) ==
             std::size_t{image.pages} * kWasmPageBytes;
}

void apply_image(const Image& image, Guest& guest, bool track_writes) {
  wasm::Instance& instance = guest.instance();
  instance.prepare_restore(image.pages);
  place_image(image, instance);
  instance.load_globals(image.globals);
  guest.set_handle(image.handle);
  // Best effort: without tracking, snapshots hash every page.
  if (track_writes) instance.track_writes();
}

bool reset_to_image(const Image& image, Guest& guest) {
  wasm::Instance& instance = guest.instance();
  if (instance.state() != wasm::InstanceState::kReady || instance.memory_pages() != image.pages ||
      !guest.host_state_empty() || guest.wasi().output_limit_exceeded() ||
      guest.wasi().exit_code().has_value()) {
    return false;
  }
  if (maps_image(image, instance)) {
    // Only the 4 KiB pages the run wrote are copied back; the rest still map the image.
    if (sandbox_wasm_reset_mapped_image(instance.rt_memory(), image.view) != 0) return false;
  } else {
    // Every page is rewritten: the memory is resident, so this costs a few milliseconds, while
    // a new instance's first writes to fresh memory cost several times more.
    write_every_page(image, instance.memory());
  }
  instance.load_globals(image.globals);
  guest.set_handle(image.handle);
  // The image's C library has stdio and the preopens open; the previous run may have closed
  // them (os.close(3), io.stdout:close()).
  guest.wasi().restore_fixed_fds();
  guest.wasi().reset_logs();
  return true;
}

}  // namespace sandbox::embedded

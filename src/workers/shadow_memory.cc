#include "workers/shadow_memory.h"

#include <cstring>
#include <new>
#include <stdexcept>

#include <sys/mman.h>
#include <unistd.h>

#include "base/populate_write.h"
#include "wasm/memory_image.h"
#include "workers/memory_baseline.h"

namespace sandbox::workers {

ServerBase::~ServerBase() {
  if (memfd >= 0) {
    if (view != nullptr && bytes > 0) munmap(const_cast<std::uint8_t*>(view), bytes);
    close(memfd);
  }
}

std::shared_ptr<const SnapshotBase> make_server_base(std::string fingerprint, std::uint32_t pages,
                                                     const std::vector<std::uint32_t>& nonzero,
                                                     std::string_view bytes) {
  auto server = std::make_shared<ServerBase>();
  server->bytes = std::size_t{pages} * kWasmPageBytes;
  std::vector<std::uint8_t> image(server->bytes);
  for (std::size_t i = 0; i < nonzero.size(); ++i) {
    std::memcpy(image.data() + std::size_t{nonzero[i]} * kWasmPageBytes,
                bytes.data() + i * kWasmPageBytes, kWasmPageBytes);
  }
  if (server->bytes > 0) {
    server->memfd = sandbox_wasm_image_create(image.data(), image.size());
  }
  if (server->memfd >= 0) {
    void* view = mmap(nullptr, server->bytes, PROT_READ, MAP_SHARED, server->memfd, 0);
    if (view == MAP_FAILED) {
      close(server->memfd);
      server->memfd = -1;
    } else {
      server->view = static_cast<const std::uint8_t*>(view);
    }
  }
  if (server->memfd < 0) {
    server->fallback = std::move(image);
    server->view = server->fallback.data();
  }
  auto base = std::make_shared<SnapshotBase>();
  base->fingerprint = std::move(fingerprint);
  base->pages = pages;
  base->page_bytes.assign(pages, nullptr);
  for (const std::uint32_t p : nonzero) {
    base->page_bytes[p] = server->view + std::size_t{p} * kWasmPageBytes;
  }
  base->page_hashes = hash_memory({server->view, server->bytes});
  base->owner = std::shared_ptr<const void>(server, server.get());
  return base;
}

ShadowMemory::ShadowMemory(std::uint64_t max_bytes) {
  const std::uint64_t pages = (max_bytes + kWasmPageBytes - 1) / kWasmPageBytes;
  max_pages_ = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(std::max<std::uint64_t>(pages, 1), std::uint64_t{1} << 16));
  void* p = mmap(nullptr, std::size_t{max_pages_} * kWasmPageBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<std::uint8_t*>(p);
}

ShadowMemory::~ShadowMemory() {
  if (data_ != nullptr) munmap(data_, std::size_t{max_pages_} * kWasmPageBytes);
}

void ShadowMemory::clear(std::uint32_t from, std::uint32_t to) {
  if (from >= to) return;
  void* at = data_ + std::size_t{from} * kWasmPageBytes;
  const std::size_t length = std::size_t{to - from} * kWasmPageBytes;
  if (mmap(at, length, PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED) {
    throw std::bad_alloc();
  }
}

void ShadowMemory::mark(std::uint32_t first, std::uint32_t count) {
  if (written_bits_.empty()) {
    written_bits_.assign((std::size_t{max_pages_} * kChangeBlocksPerPage + 63) / 64, 0);
  }
  for (std::uint32_t b = first; b < first + count; ++b) {
    std::uint64_t& word = written_bits_[b / 64];
    const std::uint64_t bit = std::uint64_t{1} << (b % 64);
    if ((word & bit) == 0) {
      word |= bit;
      written_.push_back(b);
    }
  }
}

void ShadowMemory::forget_written() {
  for (const std::uint32_t b : written_) written_bits_[b / 64] &= ~(std::uint64_t{1} << (b % 64));
  written_.clear();
}

void ShadowMemory::reset(const ServerBase* base, std::uint32_t pages) {
  if (pages > max_pages_)
    throw std::runtime_error("Worker memory is larger than the engine's limit");
  const std::uint32_t base_pages =
      base == nullptr ? 0
                      : std::min<std::uint32_t>(
                            pages, static_cast<std::uint32_t>(base->bytes / kWasmPageBytes));
  if (base_pages > 0 && base == base_ && mapped_ == base_pages) {
    // In place: each block written since the last reset gets its image bytes (or zeros) back,
    // and the pages past the new end are dropped.
    if (pages < pages_) clear(pages, pages_);
    const std::size_t kept = std::size_t{std::min(pages, pages_)} * kChangeBlocksPerPage;
    for (const std::uint32_t b : written_) {
      if (b >= kept) continue;
      std::uint8_t* at = data_ + std::size_t{b} * kChangeBlockBytes;
      if (b < std::size_t{mapped_} * kChangeBlocksPerPage) {
        std::memcpy(at, base->view + std::size_t{b} * kChangeBlockBytes, kChangeBlockBytes);
      } else {
        std::memset(at, 0, kChangeBlockBytes);
      }
    }
    forget_written();
    pages_ = pages;
    return;
  }
  clear(0, std::max(pages_, mapped_));
  forget_written();
  mapped_ = 0;
  base_ = nullptr;
  pages_ = pages;
  if (base_pages == 0) return;
  const std::size_t length = std::size_t{base_pages} * kWasmPageBytes;
  if (base->memfd >= 0 && mmap(data_, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
                               base->memfd, 0) != MAP_FAILED) {
    mapped_ = base_pages;
    base_ = base;
    return;
  }
  std::memcpy(data_, base->view, length);
}

void ShadowMemory::resize(std::uint32_t pages) {
  if (pages > max_pages_)
    throw std::runtime_error("Worker memory is larger than the engine's limit");
  if (pages < pages_) clear(pages, pages_);
  if (pages < mapped_) {
    // The image is no longer mapped whole: the next reset maps it again.
    mapped_ = pages;
    base_ = nullptr;
  }
  pages_ = pages;
}

void ShadowMemory::write_page(std::uint32_t page, const void* bytes) {
  std::memcpy(data_ + std::size_t{page} * kWasmPageBytes, bytes, kWasmPageBytes);
  mark(page * kChangeBlocksPerPage, kChangeBlocksPerPage);
}

void ShadowMemory::write_block(std::uint32_t block, const void* bytes) {
  std::memcpy(data_ + std::size_t{block} * kChangeBlockBytes, bytes, kChangeBlockBytes);
  mark(block, 1);
}

void ShadowMemory::write_blocks(std::span<const std::uint32_t> blocks, const std::uint8_t* bytes) {
  const std::span<std::uint8_t> memory(data_, std::size_t{pages_} * kWasmPageBytes);
  for_each_block_run(memory, blocks, [&](std::span<std::uint8_t> run) {
    populate_write(run.data(), run.size());
    std::memcpy(run.data(), bytes, run.size());
    bytes += run.size();
    const auto first = static_cast<std::uint32_t>((run.data() - data_) / kChangeBlockBytes);
    mark(first, static_cast<std::uint32_t>(run.size() / kChangeBlockBytes));
  });
}

}  // namespace sandbox::workers

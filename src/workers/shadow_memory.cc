#include "workers/shadow_memory.h"

#include <cstring>
#include <new>
#include <stdexcept>

#include <sys/mman.h>
#include <unistd.h>

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

void ShadowMemory::reset(const ServerBase* base, std::uint32_t pages) {
  if (pages > max_pages_)
    throw std::runtime_error("Worker memory is larger than the engine's limit");
  clear(0, std::max(pages_, mapped_));
  mapped_ = 0;
  pages_ = pages;
  if (base == nullptr || base->bytes == 0) return;
  const std::uint32_t base_pages =
      std::min<std::uint32_t>(pages, static_cast<std::uint32_t>(base->bytes / kWasmPageBytes));
  const std::size_t length = std::size_t{base_pages} * kWasmPageBytes;
  if (base->memfd >= 0 && mmap(data_, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
                               base->memfd, 0) != MAP_FAILED) {
    mapped_ = base_pages;
    return;
  }
  std::memcpy(data_, base->view, length);
}

void ShadowMemory::resize(std::uint32_t pages) {
  if (pages > max_pages_)
    throw std::runtime_error("Worker memory is larger than the engine's limit");
  if (pages < pages_) clear(pages, pages_);
  if (pages < mapped_) mapped_ = pages;
  pages_ = pages;
}

void ShadowMemory::write_page(std::uint32_t page, const void* bytes) {
  std::memcpy(data_ + std::size_t{page} * kWasmPageBytes, bytes, kWasmPageBytes);
}

void ShadowMemory::write_block(std::uint32_t block, const void* bytes) {
  std::memcpy(data_ + std::size_t{block} * kChangeBlockBytes, bytes, kChangeBlockBytes);
}

}  // namespace sandbox::workers

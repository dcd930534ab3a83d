#include <new>

#include <sandbox/wasm/memory_pool.h>

#include "wasm/runtime.h"

namespace sandbox::wasm {

MemoryPool::MemoryPool(std::size_t max_cached) : handle_(sandbox_wasm_pool_create(max_cached)) {
  if (handle_ == nullptr) throw std::bad_alloc();
}

MemoryPool::~MemoryPool() { sandbox_wasm_pool_destroy(static_cast<sandbox_wasm_pool*>(handle_)); }

std::size_t MemoryPool::cached() const {
  return sandbox_wasm_pool_cached(static_cast<sandbox_wasm_pool*>(handle_));
}

std::uint64_t live_memory_reservations() { return sandbox_wasm_live_reservations(); }

void prepare_thread() { sandbox_wasm_thread_init(); }

}  // namespace sandbox::wasm

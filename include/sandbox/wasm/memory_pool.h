// MemoryPool: a cache of freed linear memories for later instances (InstanceOptions::pool,
// instance.h), and the count of the reservations this process maps.
//
// Thread-safety: all methods may be called from any thread; the pool must outlive every
// instance created with it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sandbox::wasm {

// Keeps freed linear memories (their 8 GiB reservations) for reuse by later instances, which
// makes instantiate+free several times cheaper (no mmap/munmap, no page-table setup). A memory
// is zeroed when it enters the pool (memset up to 1 MiB, kept read-write; larger ones are
// dropped with MADV_DONTNEED and re-protected); everything beyond the memory's size is dropped
// and made inaccessible whatever its bookkeeping says, and exactly the new instance's initial
// pages are accessible when it leaves. Thread-safe; must outlive every instance created with it.
// Holds at most `max_cached` reservations; the rest are unmapped.
class MemoryPool {
 public:
  explicit MemoryPool(std::size_t max_cached = 64);
  ~MemoryPool();  // unmaps every cached reservation
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;
  std::size_t cached() const;

 private:
  friend class Instance;
  void* handle_;
};

// Linear-memory reservations currently mapped by this process (live instances plus pooled
// memories); for leak tests and metrics.
std::uint64_t live_memory_reservations();

}  // namespace sandbox::wasm

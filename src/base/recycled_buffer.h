// Recycled buffers: memory the server needs per request, kept when the request is done for the
// next one (docs/snapshot-format.md#recycled-buffers).
//
// A buffer of fresh memory costs a page fault on the first touch of each 4 KiB page (glibc maps
// one of 128 KiB or more on its own and unmaps it when it is freed). The server allocates some
// per request: the payload of a worker's reply (hundreds of KiB for a step of Ruby or Perl), the
// chunk a snapshot reader decodes into, a zstd decoder's context. Taken from a shelf instead,
// such memory faults only while the shelf fills.
//
// The shelf is the process's, not a thread's: requests at once run on several of the server's
// threads, and any of them finds the shelf warm.
//
//   std::string payload = RecycledBuffer<std::string>::take();  // empty, capacity kept
//   ...
//   RecycledBuffer<std::string>::give_back(std::move(payload));
//
// Thread-safety: every member may be called from any thread (one mutex per shelf, held for a
// move).
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "base/mutex.h"

namespace sandbox {

// Items a shelf keeps (per type); one given back to a full shelf is dropped.
inline constexpr std::size_t kMaxShelvedItems = 8;

// A process-wide shelf of `T` (movable) items kept for reuse, at most kMaxShelvedItems.
template <class T>
class Shelf {
 public:
  // The item put back last, or nullopt when the shelf is empty.
  static std::optional<T> take() noexcept {
    Store& store = instance();
    const MutexLock lock(store.mu);
    if (store.items.empty()) return std::nullopt;
    std::optional<T> item(std::move(store.items.back()));
    store.items.pop_back();
    return item;
  }

  // Keeps `item` unless the shelf is full.
  static void put(T&& item) noexcept {
    Store& store = instance();
    const MutexLock lock(store.mu);
    if (store.items.size() < kMaxShelvedItems) store.items.push_back(std::move(item));
  }

 private:
  struct Store {
    // Room for every item up front: put() never allocates.
    Store() {
      const MutexLock lock(mu);
      items.reserve(kMaxShelvedItems);
    }
    Mutex mu;
    std::vector<T> items SANDBOX_GUARDED_BY(mu);
  };
  // Never destroyed: a thread still running while the process exits may use it. The first use
  // allocates room for kMaxShelvedItems items; failing that, the process ends (noexcept), as
  // it would on any allocation in the destructors that give items back.
  static Store& instance() noexcept {
    static Store* const store = new Store();  // NOLINT(bugprone-unhandled-exception-at-new): above
    return *store;
  }
};

// Below this a buffer comes from malloc's free lists, whose memory stays mapped anyway.
inline constexpr std::size_t kMinRecycledBufferBytes = std::size_t{64} << 10;
// The largest buffer kept (a Ruby step's reply is about 320 KiB): a shelf of buffers holds at
// most kMaxShelvedItems of them.
inline constexpr std::size_t kMaxRecycledBufferBytes = std::size_t{4} << 20;

// `Buffer`: std::string or std::vector of bytes.
template <class Buffer>
class RecycledBuffer {
 public:
  // A kept buffer, empty with its capacity, or an empty new one.
  static Buffer take() noexcept {
    std::optional<Buffer> kept = Shelf<Buffer>::take();
    if (!kept) return Buffer();
    kept->clear();
    return std::move(*kept);
  }

  // Keeps `buffer` when its capacity is in [kMinRecycledBufferBytes, kMaxRecycledBufferBytes].
  static void give_back(Buffer&& buffer) noexcept {
    const std::size_t capacity = buffer.capacity();
    if (capacity < kMinRecycledBufferBytes || capacity > kMaxRecycledBufferBytes) return;
    Shelf<Buffer>::put(std::move(buffer));
  }
};

// A recycled buffer for one scope: taken from the shelf, `size` zero bytes long, and given back
// when the scope ends (also by an exception).
//
//   ScopedRecycledBuffer<std::vector<std::uint8_t>> page(kWasmPageBytes);
//   std::memcpy(page.get().data(), ...);
template <class Buffer>
class ScopedRecycledBuffer {
 public:
  explicit ScopedRecycledBuffer(std::size_t size) : buffer_(RecycledBuffer<Buffer>::take()) {
    buffer_.resize(size);
  }
  ~ScopedRecycledBuffer() { RecycledBuffer<Buffer>::give_back(std::move(buffer_)); }
  ScopedRecycledBuffer(const ScopedRecycledBuffer&) = delete;
  ScopedRecycledBuffer& operator=(const ScopedRecycledBuffer&) = delete;

  Buffer& get() { return buffer_; }

 private:
  Buffer buffer_;
};

}  // namespace sandbox

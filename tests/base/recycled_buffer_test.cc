// RecycledBuffer and Shelf (src/base/recycled_buffer.h): a buffer given back is taken again,
// empty and with its capacity; buffers too small or too large to be worth keeping are dropped;
// the shelf keeps at most kMaxShelvedItems; threads taking and giving back at once never get
// the same buffer; a scoped buffer is given back when its scope ends.
#include "base/recycled_buffer.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace sandbox {
namespace {

using Bytes = std::vector<std::uint8_t>;

// The shelves are the process's: each test starts from empty ones.
template <class T>
void empty_shelf() {
  while (Shelf<T>::take()) {
  }
}

TEST(RecycledBuffer, ABufferGivenBackIsTakenAgainEmptyWithItsCapacity) {
  empty_shelf<std::string>();
  std::string payload(300 << 10, 'x');
  const char* const memory = payload.data();
  const std::size_t capacity = payload.capacity();
  RecycledBuffer<std::string>::give_back(std::move(payload));
  std::string again = RecycledBuffer<std::string>::take();
  EXPECT_TRUE(again.empty());
  EXPECT_EQ(again.capacity(), capacity);
  EXPECT_EQ(again.data(), memory);           // the same memory, not a copy
  EXPECT_FALSE(Shelf<std::string>::take());  // the shelf is empty again
}

// A worker's restore made the 64 KiB buffer it builds each page in from fresh memory, 16 page
// faults per restore; a scoped buffer is the last one's memory, zeroed.
TEST(RecycledBuffer, AScopedBufferIsTheLastOnesMemoryZeroed) {
  empty_shelf<Bytes>();
  const std::uint8_t* memory = nullptr;
  {
    ScopedRecycledBuffer<Bytes> page(64 << 10);
    ASSERT_EQ(page.get().size(), std::size_t{64} << 10);
    page.get().assign(page.get().size(), 0xab);
    memory = page.get().data();
  }
  ScopedRecycledBuffer<Bytes> again(64 << 10);
  EXPECT_EQ(again.get().data(), memory);
  EXPECT_EQ(again.get().size(), std::size_t{64} << 10);
  EXPECT_TRUE(std::all_of(again.get().begin(), again.get().end(), [](auto b) { return b == 0; }));
  EXPECT_FALSE(Shelf<Bytes>::take());  // held by `again` until its scope ends
}

TEST(RecycledBuffer, BuffersTooSmallOrTooLargeAreNotKept) {
  empty_shelf<Bytes>();
  RecycledBuffer<Bytes>::give_back(Bytes(kMinRecycledBufferBytes - 1));
  RecycledBuffer<Bytes>::give_back(Bytes(kMaxRecycledBufferBytes + 1));
  EXPECT_FALSE(Shelf<Bytes>::take());
  RecycledBuffer<Bytes>::give_back(Bytes(kMinRecycledBufferBytes));
  RecycledBuffer<Bytes>::give_back(Bytes(kMaxRecycledBufferBytes));
  EXPECT_EQ(RecycledBuffer<Bytes>::take().capacity(), kMaxRecycledBufferBytes);  // last in
  EXPECT_EQ(RecycledBuffer<Bytes>::take().capacity(), kMinRecycledBufferBytes);
  EXPECT_EQ(RecycledBuffer<Bytes>::take().capacity(), 0u);
}

TEST(RecycledBuffer, TheShelfKeepsAtMostItsBound) {
  empty_shelf<Bytes>();
  for (std::size_t i = 0; i < kMaxShelvedItems + 3; ++i) {
    RecycledBuffer<Bytes>::give_back(Bytes(kMinRecycledBufferBytes));
  }
  std::size_t kept = 0;
  while (Shelf<Bytes>::take()) ++kept;
  EXPECT_EQ(kept, kMaxShelvedItems);
}

TEST(RecycledBuffer, ThreadsTakingAtOnceNeverShareABuffer) {
  empty_shelf<std::string>();
  constexpr int kThreads = 8;
  constexpr int kRounds = 200;
  std::vector<std::thread> threads;
  std::vector<char> intact(kThreads, 1);  // not vector<bool>: one byte per thread
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &intact] {
      for (int round = 0; round < kRounds; ++round) {
        std::string mine = RecycledBuffer<std::string>::take();
        // Another holder of the same memory would overwrite these bytes while they are checked.
        mine.assign(kMinRecycledBufferBytes, static_cast<char>('a' + t));
        std::this_thread::yield();
        if (mine.find_first_not_of(static_cast<char>('a' + t)) != std::string::npos) {
          intact[t] = 0;
        }
        RecycledBuffer<std::string>::give_back(std::move(mine));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(intact[t], 1) << "thread " << t;
  std::set<const char*> distinct;
  std::size_t kept = 0;
  while (auto buffer = Shelf<std::string>::take()) {
    distinct.insert(buffer->data());
    ++kept;
  }
  EXPECT_EQ(distinct.size(), kept);  // no buffer was put back twice
  EXPECT_LE(kept, kMaxShelvedItems);
}

}  // namespace
}  // namespace sandbox

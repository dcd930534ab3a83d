// Checks that a stored snapshot reads back as the memory it was taken of.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include <gtest/gtest.h>

#include "snapshot/delta.h"

namespace sandbox::testing_support {

// Every page of `memory` through `reader`: its bytes, or absent exactly where it is all zero.
inline void expect_reads_back(SnapshotPageReader& reader, std::span<const std::uint8_t> memory) {
  const auto pages = static_cast<std::uint32_t>(memory.size() / kSnapshotPageBytes);
  for (std::uint32_t p = 0; p < pages; ++p) {
    const auto view = reader.page(p);
    const auto want = memory.subspan(std::size_t{p} * kSnapshotPageBytes, kSnapshotPageBytes);
    if (view) {
      EXPECT_TRUE(std::equal(view->begin(), view->end(), want.begin())) << "page " << p;
    } else {
      EXPECT_TRUE(std::all_of(want.begin(), want.end(), [](auto b) { return b == 0; }))
          << "page " << p;
    }
  }
}

}  // namespace sandbox::testing_support

#include "snapshot/dirty_blocks.h"

#include <algorithm>

namespace sandbox {

std::vector<WrittenPage> written_pages(const std::vector<std::uint32_t>& pages,
                                       std::span<const std::uint16_t> blocks, std::uint32_t limit) {
  const bool masked = blocks.size() == pages.size();
  std::vector<WrittenPage> out;
  out.reserve(pages.size());
  for (std::size_t i = 0; i < pages.size(); ++i) {
    if (pages[i] < limit) out.push_back({pages[i], masked ? blocks[i] : kAllBlocks});
  }
  std::sort(out.begin(), out.end(),
            [](const WrittenPage& a, const WrittenPage& b) { return a.page < b.page; });
  std::size_t kept = 0;
  for (const WrittenPage& w : out) {
    if (kept > 0 && out[kept - 1].page == w.page) {
      out[kept - 1].blocks |= w.blocks;
    } else {
      out[kept++] = w;
    }
  }
  out.resize(kept);
  return out;
}

}  // namespace sandbox

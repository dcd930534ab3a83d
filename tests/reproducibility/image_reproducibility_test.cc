// A context's snapshot is stored as a delta from its engine's image and must restore in the next
// process (docs/snapshot-format.md#delta-encoding): the image every process of a build captures
// has to be the same. Two captures in one process cannot show it (they share host addresses, the
// stdlib tree and everything else fixed per process), so this test captures each engine's image
// in two separate processes and compares their fingerprints.
#include <array>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace {

std::map<std::string, std::string> fingerprints_from_a_new_process() {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(IMAGE_FINGERPRINT_TOOL, "r"), ::pclose);
  if (!pipe) return {};
  std::string out;
  std::array<char, 4096> buffer{};
  while (const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe.get())) {
    out.append(buffer.data(), n);
  }
  std::map<std::string, std::string> by_language;
  std::istringstream lines(out);
  std::string language;
  std::string fingerprint;
  while (lines >> language >> fingerprint) by_language[language] = fingerprint;
  return by_language;
}

// Regression: Python's, Ruby's and Perl's images differed between processes because inode
// numbers seen at boot were derived from host addresses (ASLR); after a restart every such
// context failed to restore.
TEST(ImageReproducibility, EveryEngineCapturesTheSameImageInTwoProcesses) {
  const auto first = fingerprints_from_a_new_process();
  const auto second = fingerprints_from_a_new_process();
  ASSERT_FALSE(first.empty()) << "the fingerprint tool printed nothing";
  EXPECT_EQ(first, second);
  for (const auto& [language, fingerprint] : first) {
    // calc has no sessions; every engine with contexts must offer a base, or its contexts are
    // stored whole (slow and large) without anyone noticing.
    if (language == "calc") continue;
    EXPECT_NE(fingerprint, "none") << language << " offers no reproducible image";
  }
}

}  // namespace

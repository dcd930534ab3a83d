// Prints "<language> <fingerprint>" for every built-in engine whose sessions offer a snapshot
// base (docs/snapshot-format.md#delta-encoding), and "<language> none" for the others. The
// reproducibility test runs it in separate processes and compares.
#include <exception>
#include <iostream>

#include "registry.h"

int main() {
  try {
    for (const auto& entry : sandbox::engines::builtin_engines()) {
      const sandbox::Engine engine = entry.make();
      std::shared_ptr<const sandbox::SnapshotBase> base;
      if (engine.sessions && engine.sessions->base) base = engine.sessions->base();
      std::cout << entry.name << ' ' << (base ? base->fingerprint : "none") << '\n';
    }
  } catch (const std::exception& e) {
    std::cerr << "image_fingerprint: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

// The WASI host writes guest memory (fd_read, random_get, ...): in every write-tracking mode,
// each page whose bytes a call changed is in the reported dirty set.
#include <gtest/gtest.h>

#include <sandbox/wasi.h>
#include <sandbox/wasm.h>

#include "guest_wasi_probe.h"

namespace sandbox {
namespace {

const wasm::Module& probe_module() {
  static const wasm::Module module(*sandbox_wasm_module_guest_wasi_probe());
  return module;
}

class WasiGuestTracking : public ::testing::TestWithParam<wasm::WriteTracking> {
 protected:
  void SetUp() override {
    if (GetParam() == wasm::WriteTracking::kUserfaultfd &&
        !wasm::userfaultfd_tracking_available()) {
      GTEST_SKIP() << "userfaultfd write-protection unavailable";
    }
    ws_.write("/workspace/data.txt", std::string(70000, 'd'));
    host_ = std::make_unique<WasiHost>(WasiOptions{.workspace = &ws_});
    instance_ = wasm::Instance::create(
        probe_module(), {.imports = {{"wasi_snapshot_preview1", host_->import_context()}}});
    host_->attach_memory(instance_->rt_memory());
    instance_->set_fuel(1'000'000'000);
    ASSERT_TRUE(instance_->call<void()>("_initialize").ok());
  }

  // Runs `name` tracked and checks that every page it changed is reported.
  void expect_changes_reported(const char* name) {
    const auto before_span = instance_->memory();
    const std::vector<std::uint8_t> before(before_span.begin(), before_span.end());
    ASSERT_TRUE(instance_->track_writes(GetParam()));
    const auto r = instance_->call<std::int32_t()>(name);
    ASSERT_TRUE(r.ok()) << r.trap.message;
    const auto dirty = instance_->take_dirty_pages();
    ASSERT_TRUE(dirty.has_value());
    const auto after = instance_->memory();
    std::size_t changed = 0;
    for (std::uint32_t p = 0; p < after.size() / 65536; ++p) {
      const std::size_t at = std::size_t{p} * 65536;
      const bool differs =
          at >= before.size() ||
          !std::equal(after.begin() + at, after.begin() + at + 65536, before.begin() + at);
      if (!differs) continue;
      ++changed;
      EXPECT_TRUE(std::find(dirty->begin(), dirty->end(), p) != dirty->end())
          << name << ": page " << p << " changed but was not reported";
    }
    EXPECT_GT(changed, 0u);
  }

  ManualClock clock_{1'700'000'000'000};
  Workspace ws_{clock_};
  std::unique_ptr<WasiHost> host_;
  std::unique_ptr<wasm::Instance> instance_;
};

TEST_P(WasiGuestTracking, RandomGetIntoGuestPagesIsReported) {
  expect_changes_reported("random_into_pages");
}

TEST_P(WasiGuestTracking, FileReadsAndWritesAreReported) {
  expect_changes_reported("files");
  expect_changes_reported("workspace_access");
}

INSTANTIATE_TEST_SUITE_P(Modes, WasiGuestTracking,
                         ::testing::Values(wasm::WriteTracking::kUserfaultfd,
                                           wasm::WriteTracking::kMprotect),
                         [](const auto& info) {
                           return info.param == wasm::WriteTracking::kUserfaultfd ? "uffd"
                                                                                  : "mprotect";
                         });

}  // namespace
}  // namespace sandbox

// The InterruptRace suite delivers a deadline inside the mprotect tracker's SIGSEGV path (race
// point SANDBOX_WASM_RACE_TRACKING_FAULT); the asynchronous userfaultfd tracker, the default
// where the kernel offers it, has no such path. Pin mprotect for that suite so it keeps
// guarding the fallback; every other suite runs with the process default.
#include <string_view>

#include <gtest/gtest.h>

#include <sandbox/wasm.h>

namespace sandbox::wasm {
namespace {

class PinMprotectForRaces : public ::testing::EmptyTestEventListener {
 public:
  void OnTestStart(const ::testing::TestInfo& info) override {
    if (std::string_view(info.test_suite_name()) != "InterruptRace") return;
    saved_ = default_write_tracking();
    set_default_write_tracking(WriteTracking::kMprotect);
    pinned_ = true;
  }
  void OnTestEnd(const ::testing::TestInfo&) override {
    if (pinned_) set_default_write_tracking(saved_);
    pinned_ = false;
  }

 private:
  WriteTracking saved_ = WriteTracking::kAuto;
  bool pinned_ = false;
};

const bool kRegistered = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new PinMprotectForRaces);
  return true;
}();

}  // namespace
}  // namespace sandbox::wasm

// Write tracking: the pages guest code or host code writes are reported once, growth is
// tracked, reads cost nothing, and out-of-bounds accesses still trap.
#include <algorithm>

#include <gtest/gtest.h>

#include "test_host.h"

namespace sandbox::wasm {
namespace {

using testing::make_instance;
using testing::plain_module;
using testing::TestEnv;

constexpr std::uint32_t kPage = 65536;

TEST(WriteTracking, ReportsExactlyThePagesWrittenSinceTheLastCall) {
  Module m = plain_module();
  TestEnv env;
  auto inst = make_instance(m, env);
  ASSERT_NE((inst->call<std::uint32_t(std::uint32_t)>("grow", 8).value), 0xffffffffu);
  const std::uint32_t pages = inst->memory_pages();
  ASSERT_GE(pages, 9u);
  ASSERT_TRUE(inst->track_writes());
  EXPECT_EQ(inst->take_dirty_pages(), std::vector<std::uint32_t>{});

  const std::uint32_t a = (pages - 3) * kPage + 100;
  const std::uint32_t b = (pages - 1) * kPage + 8;
  inst->call<void(std::uint32_t, std::uint32_t)>("store", a, 7);
  inst->call<void(std::uint32_t, std::uint32_t)>("store", a + 4, 8);  // same page again
  inst->call<void(std::uint32_t, std::uint32_t)>("store", b, 9);
  EXPECT_EQ((inst->call<std::uint32_t(std::uint32_t)>("load", a).value), 7u);  // reads are free
  EXPECT_EQ(inst->take_dirty_pages(), (std::vector<std::uint32_t>{pages - 3, pages - 1}));
  EXPECT_EQ(inst->take_dirty_pages(), std::vector<std::uint32_t>{});

  // The values survived the re-protection, and the page is tracked again.
  EXPECT_EQ((inst->call<std::uint32_t(std::uint32_t)>("load", b).value), 9u);
  inst->call<void(std::uint32_t, std::uint32_t)>("store", b, 10);
  EXPECT_EQ(inst->take_dirty_pages(), std::vector<std::uint32_t>{pages - 1});
}

TEST(WriteTracking, HostWritesAndGrowthAreTracked) {
  Module m = plain_module();
  TestEnv env;
  auto inst = make_instance(m, env);
  ASSERT_TRUE(inst->track_writes());
  const std::uint32_t pages = inst->memory_pages();
  inst->memory()[std::size_t{pages - 1} * kPage + 5] = 1;  // host code writing guest memory
  ASSERT_EQ((inst->call<std::uint32_t(std::uint32_t)>("grow", 2).value), pages);
  inst->call<void(std::uint32_t, std::uint32_t)>("store", (pages + 1) * kPage, 3);
  EXPECT_EQ(inst->take_dirty_pages(), (std::vector<std::uint32_t>{pages - 1, pages + 1}));
}

TEST(WriteTracking, OutOfBoundsStillTrapsAndTheInstanceFreesCleanly) {
  Module m = plain_module();
  TestEnv env;
  auto inst = make_instance(m, env);
  ASSERT_TRUE(inst->track_writes());
  const std::uint32_t end = inst->memory_pages() * kPage;
  const auto r = inst->call<void(std::uint32_t, std::uint32_t)>("store", end + 16, 1);
  EXPECT_EQ(r.trap.kind, TrapKind::kOutOfBounds);
}

TEST(WriteTracking, ManyTrackedInstancesAtOnce) {
  Module m = plain_module();
  TestEnv env;
  std::vector<std::unique_ptr<Instance>> instances;
  for (int i = 0; i < 64; ++i) {
    instances.push_back(make_instance(m, env));
    ASSERT_TRUE(instances.back()->track_writes());
  }
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const std::uint32_t page = static_cast<std::uint32_t>(i % instances[i]->memory_pages());
    instances[i]->call<void(std::uint32_t, std::uint32_t)>("store", page * kPage + 64, 1);
    EXPECT_EQ(instances[i]->take_dirty_pages(), std::vector<std::uint32_t>{page});
  }
}

}  // namespace
}  // namespace sandbox::wasm

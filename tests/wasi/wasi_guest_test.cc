// The WASI host under a real guest: tests/guests/wasi/wasi_probe.c compiled with clang-19 and
// wasi-libc, translated by sandbox-wasmc, run on our Wasm runtime.
#include <gtest/gtest.h>

#include <sandbox/wasi.h>
#include <sandbox/wasm.h>

#include "guest_wasi_probe.h"
#include "wasi_zip_util.h"

namespace sandbox {
namespace {

const wasm::Module& probe_module() {
  static const wasm::Module module(*sandbox_wasm_module_guest_wasi_probe());
  return module;
}

class WasiGuest : public ::testing::Test {
 protected:
  void start(WasiOptions options) {
    host_ = std::make_unique<WasiHost>(std::move(options));
    instance_ = wasm::Instance::create(
        probe_module(), {.imports = {{"wasi_snapshot_preview1", host_->import_context()}}});
    host_->attach_memory(instance_->rt_memory());
    instance_->set_fuel(1'000'000'000);
    const auto init = instance_->call<void()>("_initialize");
    ASSERT_TRUE(init.ok()) << init.trap.message;
  }
  std::int32_t call(const char* name) {
    const auto r = instance_->call<std::int32_t()>(name);
    EXPECT_TRUE(r.ok()) << name << ": " << r.trap.message;
    return r.value;
  }
  std::vector<std::string> out() const { return host_->logs().stdout_lines; }

  ManualClock clock_{1'700'000'000'000};
  Workspace ws_{clock_};
  std::unique_ptr<WasiHost> host_;
  std::unique_ptr<wasm::Instance> instance_;
};

TEST_F(WasiGuest, PrintsToCapturedStdoutAndStderr) {
  start({});
  EXPECT_EQ(call("hello"), 0);
  EXPECT_EQ(out(), (std::vector<std::string>{"hello from the guest", "second line"}));
  EXPECT_EQ(host_->logs().stderr_lines, std::vector<std::string>{"to stderr"});
}

TEST_F(WasiGuest, SeesItsEnvironmentAndNothingOfTheHosts) {
  ::setenv("SANDBOX_HOST_SECRET", "leak", 1);
  start({.env = {{"GREETING", "hi there"}, {"EMPTY", ""}}});
  EXPECT_EQ(call("print_args_env"), 0);
  EXPECT_EQ(out(), (std::vector<std::string>{"env EMPTY=", "env GREETING=hi there"}));
}

TEST_F(WasiGuest, AnOutputFloodStopsTheGuestAtTheLimit) {
  start({});
  const auto r = instance_->call<std::int32_t(std::int32_t)>("flood", 100);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.trap.kind, wasm::TrapKind::kOutputLimit);
  EXPECT_TRUE(host_->output_limit_exceeded());
  EXPECT_TRUE(instance_->invalid());
  EXPECT_EQ(out().size(), 32u);  // 32 pieces of 1 KiB fit in 32,768 bytes; the 33rd does not
}

TEST_F(WasiGuest, PathsOutsideThePreopensCannotBeOpened) {
  start({.workspace = &ws_});
  EXPECT_EQ(call("escapes"), 0);
  const auto lines = out();
  ASSERT_EQ(lines.size(), 9u);
  for (const auto& line : lines) {
    SCOPED_TRACE(line);
    EXPECT_EQ(line.find("opened"), std::string::npos);
    EXPECT_NE(line.find("errno"), std::string::npos);
  }
  // wasi-libc rejects paths matching no preopen itself; the host refuses ".." above a preopen.
  EXPECT_EQ(lines[2], "/workspace/../etc/passwd errno 76");
  EXPECT_EQ(lines[4], "/stdlib/../../etc/passwd errno 76");
}

TEST_F(WasiGuest, AnOpenFileIsAnOpenGuestFd) {
  start({.workspace = &ws_});
  EXPECT_FALSE(host_->has_open_guest_fds());
  EXPECT_EQ(call("keep_open"), 0);
  EXPECT_TRUE(host_->has_open_guest_fds());
  EXPECT_TRUE(ws_.exists("/workspace/kept.txt"));
  EXPECT_EQ(call("close_kept"), 0);
  EXPECT_FALSE(host_->has_open_guest_fds());
}

TEST_F(WasiGuest, FileOperationsLandInTheWorkspace) {
  start({.workspace = &ws_});
  ASSERT_EQ(call("files"), 0);
  EXPECT_EQ(ws_.read("/workspace/out/b.txt").content, "first line\nappended\n");
  EXPECT_FALSE(ws_.exists("/workspace/out/a.txt"));
  EXPECT_FALSE(ws_.exists("/workspace/out/relative.txt"));
  EXPECT_EQ(ws_.stat("/workspace/out/b.txt").updated_at, 1'700'000'000'000);
  EXPECT_EQ(out(),
            (std::vector<std::string>{"read 20: first line", "appended", "entry .", "entry ..",
                                      "entry b.txt", "entry relative.txt", "size 20"}));
}

TEST_F(WasiGuest, TheStdlibIsReadableButNotWritable) {
  start({.stdlib = StdlibTree::from_zip(
             testing_wasi::make_stored_zip({{"lib/hello.txt", "hi from the archive\n"}})),
         .workspace = &ws_});
  ASSERT_EQ(call("stdlib"), 0);
  EXPECT_EQ(out(),
            (std::vector<std::string>{"stdlib says hi from the archive", "write open errno 63",
                                      "mkdir errno 63", "dev null opened"}));
}

TEST_F(WasiGuest, ADisabledWorkspaceAnswersEacces) {
  ws_.write("/workspace/data.txt", "secret");
  start({.workspace = &ws_});
  ws_.set_disabled(true);
  ASSERT_EQ(call("workspace_access"), 0);
  EXPECT_EQ(out(), std::vector<std::string>{"read 2 write 2 mkdir 2 list 2"});
  EXPECT_FALSE(ws_.exists("/workspace/new.txt"));
}

TEST_F(WasiGuest, ExitIsATrapCarryingTheCode) {
  start({});
  const auto r = instance_->call<void(std::int32_t)>("exit_with", 3);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.trap.kind, wasm::TrapKind::kExit);
  EXPECT_EQ(r.trap.exit_code, 3u);
  EXPECT_EQ(host_->exit_code(), 3u);
  EXPECT_EQ(out(), std::vector<std::string>{"exiting"});
}

TEST_F(WasiGuest, ClocksAndRandomness) {
  start({.clock = &clock_});
  ASSERT_EQ(call("clock_and_random"), 0);
  EXPECT_EQ(out(), std::vector<std::string>{"time 1700000000 random 1"});
}

// Regression (issue 12): after a snapshot, sessions write-protect every page to track writes;
// getrandom(2) into such a page failed with EFAULT (no fault reaches the tracker), so
// os.urandom raised in a context after its first snapshot.
TEST_F(WasiGuest, RandomGetFillsWriteTrackedPages) {
  start({});
  ASSERT_TRUE(instance_->track_writes());
  EXPECT_EQ(call("random_into_pages"), 0);
  const auto dirty = instance_->take_dirty_pages();
  ASSERT_TRUE(dirty.has_value());
  EXPECT_GE(dirty->size(), 3u);  // the bytes landed, and the tracker saw the pages written
}

TEST_F(WasiGuest, ABadPointerIsEfault) {
  start({});
  EXPECT_EQ(call("bad_pointer"), 21);
  EXPECT_FALSE(instance_->invalid());
}

}  // namespace
}  // namespace sandbox

// Crash safety: a failure (an exception) or a crash (process exit) at every write statement of
// a storage operation leaves either the old state or the new one, never a mix.
#include <functional>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "storage/sqlite/sqlite_stores.h"
#include "storage/storage_test_util.h"

namespace sandbox {
namespace {

using testing_storage::CrashAtNthWrite;
using testing_storage::FailNthWrite;
using testing_storage::InjectedFault;
using testing_storage::TempDir;

std::vector<std::uint8_t> blob(std::uint8_t fill) {
  return std::vector<std::uint8_t>(64 * 1024, fill);
}

// The state a snapshot test compares: every chunk and the row of one context.
struct ContextState {
  StoredChunks chunks;
  std::optional<boost::json::object> row;
  bool operator==(const ContextState&) const = default;
};

ContextState read_state(InterpreterStore& store) {
  return {store.read_chunks("k", "ctx"), store.get_context("k", "ctx")};
}

// Old snapshot: chunks 0, 1, 2 and row v1.
void write_old(InterpreterStore& store) {
  SnapshotWrite w;
  w.upserts = {{0, blob(1)}, {1, blob(1)}, {2, blob(1)}};
  w.context_row = {{"id", "ctx"}, {"snapshot", {{"chunkCount", 3}, {"v", 1}}}};
  store.write_snapshot("k", "ctx", w);
  store.put_context("k", "other", {{"id", "other"}});
}

// New snapshot: chunk 1 removed, 0 rewritten, 3 added, row v2.
SnapshotWrite new_snapshot() {
  SnapshotWrite w;
  w.removed = {1};
  w.upserts = {{0, blob(2)}, {3, blob(2)}};
  w.context_row = {{"id", "ctx"}, {"snapshot", {{"chunkCount", 3}, {"v", 2}}}};
  return w;
}

struct Operation {
  const char* name;
  std::function<void(InterpreterStore&)> run;
};

const Operation kOperations[] = {
    {"write_snapshot", [](InterpreterStore& s) { s.write_snapshot("k", "ctx", new_snapshot()); }},
    {"drop_snapshot_with_row",
     [](InterpreterStore& s) {
       s.drop_snapshot("k", "ctx", boost::json::object{{"id", "ctx"}});
     }},
    {"drop_snapshot_without_row",
     [](InterpreterStore& s) { s.drop_snapshot("k", "ctx", std::nullopt); }},
    {"delete_context", [](InterpreterStore& s) { s.delete_context("k", "ctx"); }},
    {"wipe", [](InterpreterStore& s) { s.wipe("k"); }},
};

void PrintTo(const Operation& op, std::ostream* os) { *os << op.name; }

// The state after the operation succeeded.
ContextState expected_after(const Operation& op) {
  SqliteStorage scratch(":memory:");
  write_old(scratch.interpreters());
  op.run(scratch.interpreters());
  return read_state(scratch.interpreters());
}

class StorageFaults : public ::testing::TestWithParam<Operation> {};

TEST_P(StorageFaults, FailureAtEveryWriteLeavesOldOrNew) {
  const Operation& op = GetParam();
  const ContextState after = expected_after(op);

  // How many write statements does the operation issue?
  FailNthWrite counter(0);
  int writes = 0;
  {
    SqliteStorage s(":memory:", {.fault_injector = &counter});
    write_old(s.interpreters());
    counter.arm(0);
    op.run(s.interpreters());
    writes = counter.count();
  }
  ASSERT_GE(writes, 2) << "expected several statements plus COMMIT";

  TempDir dir;
  for (int n = 1; n <= writes; ++n) {
    const std::string path = dir.file(std::string(op.name) + std::to_string(n) + ".db");
    FailNthWrite faults(0);
    ContextState before;
    {
      SqliteStorage s(path, {.fault_injector = &faults});
      faults.disarm();
      write_old(s.interpreters());
      before = read_state(s.interpreters());
      faults.arm(n);
      EXPECT_THROW(op.run(s.interpreters()), InjectedFault) << "write " << n;
      faults.disarm();
      EXPECT_EQ(read_state(s.interpreters()), before) << op.name << " failed at write " << n;
      // The store is usable after the failure, and the same operation then succeeds.
      op.run(s.interpreters());
      EXPECT_EQ(read_state(s.interpreters()), after);
    }
    // And the rolled-back-then-applied state is what a reopen sees.
    SqliteStorage reopened(path);
    EXPECT_EQ(read_state(reopened.interpreters()), after);
  }
}

TEST_P(StorageFaults, CrashAtEveryWriteLeavesOldOrNewAfterReopen) {
  const Operation& op = GetParam();
  const ContextState after = expected_after(op);
  ContextState before;
  {
    SqliteStorage scratch(":memory:");
    write_old(scratch.interpreters());
    before = read_state(scratch.interpreters());
  }
  FailNthWrite counter(0);
  int writes = 0;
  {
    SqliteStorage s(":memory:", {.fault_injector = &counter});
    write_old(s.interpreters());
    counter.arm(0);
    op.run(s.interpreters());
    writes = counter.count();
  }

  TempDir dir;
  // n == writes + 1: the child gets through COMMIT and exits before anything else.
  for (int n = 1; n <= writes + 1; ++n) {
    const std::string path = dir.file(std::string(op.name) + std::to_string(n) + ".db");
    {
      SqliteStorage s(path);
      write_old(s.interpreters());
    }
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      CrashAtNthWrite crash(n);
      SqliteStorage s(path, {.fault_injector = &crash});
      op.run(s.interpreters());
      _exit(0);  // completed without crashing
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    const bool crashed = WEXITSTATUS(status) == 42;
    EXPECT_EQ(crashed, n <= writes) << "write " << n;
    SqliteStorage reopened(path);
    const ContextState state = read_state(reopened.interpreters());
    if (crashed) {
      EXPECT_EQ(state, before) << op.name << " crashed at write " << n;
    } else {
      EXPECT_EQ(state, after) << op.name;
    }
    // The untouched context of the same key survives unless the key was wiped.
    if (std::string_view(op.name) != "wipe" || crashed) {
      EXPECT_TRUE(reopened.interpreters().get_context("k", "other").has_value());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Operations, StorageFaults, ::testing::ValuesIn(kOperations),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(StorageFaults, SandboxPersistIsAtomic) {
  TempDir dir;
  FailNthWrite faults(0);
  SqliteStorage s(dir.file("sandbox.db"), {.fault_injector = &faults});
  auto& store = s.sandboxes();
  faults.disarm();
  WorkspacePersist old_files;
  old_files.upserts = {{"/workspace/a", std::vector<std::uint8_t>{1}, 1},
                       {"/workspace/d", std::nullopt, 0}};
  store.persist("sb", old_files, StoredRow{"c", {{"v", 1}}});
  const auto before_files = store.load_files("sb");

  WorkspacePersist diff;
  diff.deletes = {"/workspace/a", "/workspace/d"};
  diff.upserts = {{"/workspace/b", std::vector<std::uint8_t>{2}, 2}};
  const StoredRow context{"c", {{"v", 2}}};
  // 2 deletes + 1 upsert + 1 context + COMMIT.
  for (int n = 1; n <= 5; ++n) {
    faults.arm(n);
    EXPECT_THROW(store.persist("sb", diff, context), InjectedFault) << n;
    faults.disarm();
    const auto files = store.load_files("sb");
    ASSERT_EQ(files.size(), before_files.size());
    for (std::size_t i = 0; i < files.size(); ++i) EXPECT_EQ(files[i].path, before_files[i].path);
    EXPECT_EQ(store.get_context("sb", "c"), (boost::json::object{{"v", 1}}));
  }
  faults.arm(6);
  store.persist("sb", diff, context);
  ASSERT_EQ(store.load_files("sb").size(), 1u);
  EXPECT_EQ(store.get_context("sb", "c"), (boost::json::object{{"v", 2}}));
}

}  // namespace
}  // namespace sandbox

// Crash safety, on both backends: a failure (an exception) or a crash (process exit) at every
// write statement of a storage operation leaves either the old state or the new one, never a mix.
// For PostgreSQL the crash is the client process dying mid-transaction (the server rolls back
// what it had not committed).
#include <functional>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "storage/storage_backends.h"

namespace sandbox {
namespace {

using testing_storage::Backend;
using testing_storage::CrashAtNthWrite;
using testing_storage::FailNthWrite;
using testing_storage::InjectedFault;
using testing_storage::TestDatabase;

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
     [](InterpreterStore& s) { s.drop_snapshot("k", "ctx", boost::json::object{{"id", "ctx"}}); }},
    {"drop_snapshot_without_row",
     [](InterpreterStore& s) { s.drop_snapshot("k", "ctx", std::nullopt); }},
    {"delete_context", [](InterpreterStore& s) { s.delete_context("k", "ctx"); }},
    {"wipe", [](InterpreterStore& s) { s.wipe("k"); }},
};

void PrintTo(const Operation& op, std::ostream* os) { *os << op.name; }

// Starts key "k" over with the old state.
void reset_old(InterpreterStore& store) {
  store.wipe("k");
  write_old(store);
}

class StorageFaults : public ::testing::TestWithParam<std::tuple<Backend, Operation>> {
 protected:
  void SetUp() override {
    db_ = std::get<0>(GetParam()).make();
    if (!db_) GTEST_SKIP() << testing_storage::kNoPostgresMessage;
    const Operation& op = std::get<1>(GetParam());
    // The state after the operation succeeded, and how many write statements it issues.
    FailNthWrite counter(0);
    auto s = db_->open(&counter);
    counter.disarm();
    reset_old(s->interpreters());
    before_ = read_state(s->interpreters());
    counter.arm(0);
    op.run(s->interpreters());
    writes_ = counter.count();
    after_ = read_state(s->interpreters());
  }
  TestDatabase& db() { return *db_; }
  const Operation& op() const { return std::get<1>(GetParam()); }

  ContextState before_;
  ContextState after_;
  int writes_ = 0;

 private:
  std::unique_ptr<TestDatabase> db_;
};

TEST_P(StorageFaults, FailureAtEveryWriteLeavesOldOrNew) {
  ASSERT_GE(writes_, 2) << "expected several statements plus COMMIT";
  for (int n = 1; n <= writes_; ++n) {
    FailNthWrite faults(0);
    {
      auto s = db().open(&faults);
      faults.disarm();
      reset_old(s->interpreters());
      ASSERT_EQ(read_state(s->interpreters()), before_);
      faults.arm(n);
      EXPECT_THROW(op().run(s->interpreters()), InjectedFault) << "write " << n;
      faults.disarm();
      EXPECT_EQ(read_state(s->interpreters()), before_) << op().name << " failed at write " << n;
      // The store is usable after the failure, and the same operation then succeeds.
      op().run(s->interpreters());
      EXPECT_EQ(read_state(s->interpreters()), after_);
    }
    // And the rolled-back-then-applied state is what a reopen sees.
    auto reopened = db().open();
    EXPECT_EQ(read_state(reopened->interpreters()), after_);
  }
}

TEST_P(StorageFaults, CrashAtEveryWriteLeavesOldOrNewAfterReopen) {
  // n == writes + 1: the child gets through COMMIT and exits before anything else.
  for (int n = 1; n <= writes_ + 1; ++n) {
    {
      auto s = db().open();
      reset_old(s->interpreters());
    }
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      CrashAtNthWrite crash(n);
      auto s = db().open(&crash);
      op().run(s->interpreters());
      _exit(0);  // completed without crashing
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    const bool crashed = WEXITSTATUS(status) == 42;
    EXPECT_EQ(crashed, n <= writes_) << "write " << n;
    auto reopened = db().open();
    const ContextState state = read_state(reopened->interpreters());
    if (crashed) {
      EXPECT_EQ(state, before_) << op().name << " crashed at write " << n;
    } else {
      EXPECT_EQ(state, after_) << op().name;
    }
    // The untouched context of the same key survives unless the key was wiped.
    if (std::string_view(op().name) != "wipe" || crashed) {
      EXPECT_TRUE(reopened->interpreters().get_context("k", "other").has_value());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Operations, StorageFaults,
                         ::testing::Combine(::testing::Values(testing_storage::kSqliteBackend,
                                                              testing_storage::kPostgresBackend),
                                            ::testing::ValuesIn(kOperations)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param).name) + "_" +
                                  std::get<1>(info.param).name;
                         });

class SandboxFaults : public testing_storage::BackendTest {};

TEST_P(SandboxFaults, PersistIsAtomic) {
  FailNthWrite faults(0);
  auto s = db().open(&faults);
  auto& store = s->sandboxes();
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

INSTANTIATE_TEST_SUITE_P(Backends, SandboxFaults, testing_storage::kAllBackends,
                         testing_storage::backend_name);

}  // namespace
}  // namespace sandbox

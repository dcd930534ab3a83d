// SandboxStore over both backends (SQLite, PostgreSQL): workspace rows, persist, meta, contexts,
// wipe, reopen.
#include <gtest/gtest.h>

#include "storage/storage_backends.h"

namespace sandbox {
namespace {

using testing_storage::BackendTest;

std::vector<std::uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

std::vector<std::string> paths_of(const std::vector<WorkspaceRow>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.path);
  return out;
}

class SandboxStoreTest : public BackendTest {};

TEST_P(SandboxStoreTest, PersistAndLoadWorkspaceRows) {
  auto storage = db().open();
  auto& store = storage->sandboxes();
  EXPECT_TRUE(store.load_files("sb").empty());

  WorkspacePersist first;
  first.upserts = {{"/workspace/src", std::nullopt, 0},
                   {"/workspace/src/main.py", bytes_of("print(1)"), 1'000},
                   {"/workspace/empty.txt", std::vector<std::uint8_t>{}, 1'001},
                   {"/workspace/b.bin", std::vector<std::uint8_t>{0, 255, 0}, 1'002}};
  store.persist("sb", first, std::nullopt);
  auto rows = store.load_files("sb");
  EXPECT_EQ(paths_of(rows), (std::vector<std::string>{"/workspace/src", "/workspace/src/main.py",
                                                      "/workspace/empty.txt", "/workspace/b.bin"}));
  EXPECT_FALSE(rows[0].data.has_value());
  EXPECT_EQ(rows[0].updated_at, 0);
  EXPECT_EQ(*rows[1].data, bytes_of("print(1)"));
  EXPECT_EQ(rows[1].updated_at, 1'000);
  ASSERT_TRUE(rows[2].data.has_value());  // an empty file is not a directory
  EXPECT_TRUE(rows[2].data->empty());
  EXPECT_EQ(*rows[3].data, (std::vector<std::uint8_t>{0, 255, 0}));

  // Update keeps position; delete + re-add moves to the end; context row in the same call.
  WorkspacePersist second;
  second.deletes = {"/workspace/empty.txt", "/workspace/not-there"};
  second.upserts = {{"/workspace/src/main.py", bytes_of("print(2)"), 2'000},
                    {"/workspace/empty.txt", bytes_of("now full"), 2'001}};
  store.persist("sb", second, StoredRow{"ctx1", {{"executions", 1}}});
  rows = store.load_files("sb");
  EXPECT_EQ(paths_of(rows), (std::vector<std::string>{"/workspace/src", "/workspace/src/main.py",
                                                      "/workspace/b.bin", "/workspace/empty.txt"}));
  EXPECT_EQ(*rows[1].data, bytes_of("print(2)"));
  EXPECT_EQ(rows[1].updated_at, 2'000);
  EXPECT_EQ(store.get_context("sb", "ctx1"), (boost::json::object{{"executions", 1}}));
  EXPECT_TRUE(store.load_files("other").empty());
}

TEST_P(SandboxStoreTest, RowsRestoreIntoAWorkspace) {
  auto storage = db().open();
  ManualClock clock;
  Workspace source(clock);
  source.mkdir("a/b", true);
  source.write("a/b/f.txt", "hello");
  source.write("top.bin", "AAEC", Encoding::kBase64);
  WorkspacePersist all;
  all.upserts = source.serialize();
  storage->sandboxes().persist("sb", all, std::nullopt);

  Workspace restored(clock);
  restored.restore_from(storage->sandboxes().load_files("sb"));
  EXPECT_EQ(restored.manifest().files, source.manifest().files);
  EXPECT_EQ(restored.manifest().dirs, source.manifest().dirs);
}

TEST_P(SandboxStoreTest, MetaContextsWipeAndIds) {
  auto storage = db().open();
  auto& store = storage->sandboxes();
  store.put_meta("s2", {{"format", 1}, {"id", "s2"}});
  store.put_meta("s1", {{"format", 1}, {"id", "s1"}});
  store.put_context("s1", "b", {{"n", 1}});
  store.put_context("s1", "a", {{"n", 2}});
  store.put_context("s1", "b", {{"n", 3}});
  WorkspacePersist files;
  files.upserts = {{"/workspace/f", bytes_of("x"), 5}};
  store.persist("s1", files, std::nullopt);
  store.persist("s3", files, std::nullopt);
  store.set_alarm("s1", 100);
  EXPECT_EQ(store.list_sandbox_ids(), (std::vector<std::string>{"s1", "s2", "s3"}));

  const auto contexts = store.list_contexts("s1");
  ASSERT_EQ(contexts.size(), 2u);
  EXPECT_EQ(contexts[0].id, "b");
  EXPECT_EQ(contexts[0].value, (boost::json::object{{"n", 3}}));
  EXPECT_EQ(contexts[1].id, "a");
  EXPECT_TRUE(store.delete_context("s1", "a"));
  EXPECT_FALSE(store.delete_context("s1", "a"));
  EXPECT_EQ(store.get_context("s1", "a"), std::nullopt);

  EXPECT_EQ(store.get_alarm("s1"), 100);
  store.wipe("s1");
  EXPECT_EQ(store.get_meta("s1"), std::nullopt);
  EXPECT_TRUE(store.list_contexts("s1").empty());
  EXPECT_TRUE(store.load_files("s1").empty());
  EXPECT_EQ(store.get_alarm("s1"), std::nullopt);
  EXPECT_EQ(store.list_sandbox_ids(), (std::vector<std::string>{"s2", "s3"}));
  EXPECT_EQ(store.load_files("s3").size(), 1u);

  store.set_alarm("s2", 9);
  store.set_alarm("s3", 4);
  EXPECT_EQ(store.list_alarms(),
            (std::vector<std::pair<std::string, std::int64_t>>{{"s3", 4}, {"s2", 9}}));
  store.set_alarm("s3", std::nullopt);
  EXPECT_EQ(store.list_alarms().size(), 1u);
}

TEST_P(SandboxStoreTest, SidesShareOneDatabaseWithoutInterfering) {
  {
    auto storage = db().open();
    storage->sandboxes().put_meta("same-id", {{"format", 1}});
    storage->interpreters().put_meta("same-id", {{"format", 4}});
    storage->interpreters().put_context("same-id", "c", {{"side", "runtime"}});
    storage->sandboxes().put_context("same-id", "c", {{"side", "caller"}});
    WorkspacePersist files;
    files.upserts = {{"/workspace/kept", bytes_of("k"), 1}};
    storage->sandboxes().persist("same-id", files, std::nullopt);
    storage->interpreters().wipe("same-id");
  }
  auto reopened = db().open();
  EXPECT_EQ(reopened->interpreters().get_meta("same-id"), std::nullopt);
  EXPECT_EQ(reopened->sandboxes().get_meta("same-id"), (boost::json::object{{"format", 1}}));
  EXPECT_EQ(reopened->sandboxes().get_context("same-id", "c"),
            (boost::json::object{{"side", "caller"}}));
  EXPECT_EQ(reopened->sandboxes().load_files("same-id").size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Backends, SandboxStoreTest, testing_storage::kAllBackends,
                         testing_storage::backend_name);

}  // namespace
}  // namespace sandbox

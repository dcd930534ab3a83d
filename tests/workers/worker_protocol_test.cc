// The worker protocol's payloads (src/workers/worker_protocol.h): round trips, workspace replica
// updates that carry only what changed, and the refusals a compromised worker's messages meet.
#include "workers/worker_protocol.h"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <sandbox/clock.h>

namespace sandbox::workers {
namespace {

TEST(WorkerProtocol, OutcomesRoundTrip) {
  EngineOutcome o;
  o.logs.stdout_lines = {"a", "b"};
  o.logs.stderr_lines = {"e"};
  o.results.push_back(ResultEntry::of_json(boost::json::parse(R"({"k":[1,2]})")));
  o.error = ExecutionError{"KvError", "boom", {"line 1: fail boom"}, 3};
  o.usage = Usage{5, 10, 65536};
  Writer w;
  write_outcome(w, o);
  Reader r(w.buffer());
  const EngineOutcome back = read_outcome(r);
  r.finish();
  EXPECT_EQ(back.logs.stdout_lines, o.logs.stdout_lines);
  EXPECT_EQ(back.logs.stderr_lines, o.logs.stderr_lines);
  ASSERT_EQ(back.results.size(), 1u);
  EXPECT_EQ(*back.results[0].json, *o.results[0].json);
  EXPECT_EQ(back.error->traceback, o.error->traceback);
  EXPECT_EQ(back.error->line_number, 3);
  EXPECT_EQ(back.usage->memory_bytes, 65536u);
}

TEST(WorkerProtocol, ACutOrPaddedMessageIsRefused) {
  Writer w;
  write_request(w, ExecutionRequest{"code", {{"A", "1"}}});
  std::string cut = w.buffer().substr(0, w.buffer().size() - 1);
  Reader r(cut);
  EXPECT_THROW(read_request(r), WireError);
  std::string padded = w.buffer() + "x";
  Reader p(padded);
  read_request(p);
  EXPECT_THROW(p.finish(), WireError);
}

TEST(WorkerProtocol, ACountLargerThanTheMessageIsRefusedBeforeAllocating) {
  Writer w;
  w.u32(0xffffffffu);  // stdout lines
  Reader r(w.buffer());
  EXPECT_THROW(read_outcome(r), WireError);
}

TEST(WorkerProtocol, InvalidJsonInAResultIsRefused) {
  Writer w;
  w.u32(0);
  w.u32(0);
  w.u32(1);
  w.boolean(true);
  w.str("{not json");
  w.boolean(false);
  w.boolean(false);
  Reader r(w.buffer());
  EXPECT_THROW(read_outcome(r), WireError);
}

class Replicas : public ::testing::Test {
 protected:
  ManualClock clock_;
  Workspace server_{clock_};
  Workspace worker_{clock_};
  ReplicaState server_last_;
  ReplicaState worker_last_;

  // Sends the server's changes to the worker; returns the update's size in bytes.
  std::size_t push() {
    Writer w;
    write_workspace_update(w, server_, server_last_);
    Reader r(w.buffer());
    apply_workspace_update(r, worker_, worker_last_);
    return w.buffer().size();
  }
  std::size_t pull() {
    Writer w;
    write_workspace_update(w, worker_, worker_last_);
    Reader r(w.buffer());
    apply_workspace_update(r, server_, server_last_);
    return w.buffer().size();
  }
};

TEST_F(Replicas, BothSidesEndWithTheSameTreeAndOrder) {
  server_.mkdir("/workspace/b", false);
  server_.write("/workspace/b/z.txt", "zz");
  server_.write("/workspace/a.txt", "aa");
  push();
  EXPECT_EQ(worker_.serialize().size(), 3u);
  const auto rows = worker_.serialize();
  EXPECT_EQ(rows[0].path, "/workspace/b");
  EXPECT_EQ(rows[1].path, "/workspace/b/z.txt");
  EXPECT_EQ(rows[2].path, "/workspace/a.txt");
  worker_.write("/workspace/b/new.txt", "guest");
  worker_.remove("/workspace/a.txt", false, false);
  pull();
  EXPECT_EQ(server_.read("/workspace/b/new.txt").content, "guest");
  EXPECT_FALSE(server_.exists("/workspace/a.txt"));
  EXPECT_EQ(server_.manifest().files, worker_.manifest().files);
}

TEST_F(Replicas, AnUnchangedTreeCostsOneByteAndAChangedOneOnlyItsNewFiles) {
  const std::string big(200'000, 'x');
  server_.write("/workspace/big.bin", big);
  EXPECT_GT(push(), big.size());
  EXPECT_EQ(push(), 1u);
  server_.write("/workspace/small.txt", "s");
  EXPECT_LT(push(), 1'000u);  // the big file is not sent again
  EXPECT_EQ(worker_.read("/workspace/big.bin").content, big);
  EXPECT_EQ(pull(), 1u);
}

TEST_F(Replicas, AnUnchangedFileKeepsItsNodeSoOpenDescriptorsStayValid) {
  server_.write("/workspace/keep.txt", "k");
  push();
  const auto before = worker_.root()->find("keep.txt");
  server_.write("/workspace/other.txt", "o");
  push();
  EXPECT_EQ(worker_.root()->find("keep.txt"), before);
}

TEST_F(Replicas, DisabledTravels) {
  server_.set_disabled(true);
  push();
  EXPECT_TRUE(worker_.disabled());
}

// An update from a compromised worker: each is refused and leaves the tree as it was.
std::string update(const std::vector<std::tuple<std::string, bool, std::string>>& entries,
                   bool with_data = true) {
  Writer w;
  w.boolean(true);
  w.boolean(false);
  w.u32(static_cast<std::uint32_t>(entries.size()));
  for (const auto& [path, dir, data] : entries) {
    w.str(path);
    w.boolean(dir);
    w.i64(0);
    w.u64(data.size());
    w.str(dir ? ""
              : content_hash({reinterpret_cast<const std::uint8_t*>(data.data()), data.size()}));
    w.boolean(!dir && with_data);
    if (!dir && with_data) w.str(data);
  }
  return w.take();
}

TEST_F(Replicas, HostileUpdatesAreRefusedAndChangeNothing) {
  server_.write("/workspace/mine.txt", "mine");
  server_last_.known = true;
  const std::vector<std::string> hostile = {
      update({{"/workspace/../etc/passwd", false, "x"}}),
      update({{"/etc/passwd", false, "x"}}),
      update({{"/workspace/a//b", false, "x"}}),
      update({{"/workspace", true, ""}}),
      update({{"/workspace/a", false, "1"}, {"/workspace/a", false, "2"}}),
      update({{"/workspace/d/f", false, "x"}}),  // parent not listed
      update({{"/workspace/f", false, std::string(kMaxFileBytes + 1, 'x')}}),
      update({{"/workspace/unknown.txt", false, "never sent"}}, false),  // bytes it lacks
  };
  for (const auto& h : hostile) {
    Reader r(h);
    EXPECT_THROW(apply_workspace_update(r, server_, server_last_), WireError);
    EXPECT_EQ(server_.read("/workspace/mine.txt").content, "mine");
    EXPECT_EQ(server_.stats().entries, 1u);
  }
}

TEST_F(Replicas, AnUpdateOverTheTotalSizeIsRefused) {
  std::vector<std::tuple<std::string, bool, std::string>> entries;
  const std::string mib(kMaxFileBytes, 'x');
  for (std::uint64_t i = 0; i <= kMaxTotalBytes / kMaxFileBytes; ++i) {
    entries.emplace_back("/workspace/f" + std::to_string(i), false, mib);
  }
  const std::string h = update(entries);
  Reader r(h);
  EXPECT_THROW(apply_workspace_update(r, server_, server_last_), WireError);
  EXPECT_EQ(server_.stats().entries, 0u);
}

TEST(WorkerProtocol, ASnapshotHeaderMustMatchItsBytes) {
  std::vector<std::uint8_t> memory(2 * kWasmPageBytes, 7);
  SessionSnapshot snap{.handle = 9,
                       .extra = {{"g", "x"}},
                       .memory = memory,
                       .dirty_pages = std::vector<std::uint32_t>{1, 1, 5}};
  Writer w;
  write_snapshot(w, snap, false);
  Reader r(w.buffer());
  const SnapshotHeader h = read_snapshot_header(r);
  EXPECT_EQ(h.handle, 9u);
  EXPECT_EQ(h.memory_pages, 2u);
  EXPECT_EQ(*h.dirty_pages, std::vector<std::uint32_t>{1});  // sorted, unique, in range
  EXPECT_EQ(r.left(), kWasmPageBytes);
  std::string cut = w.buffer().substr(0, w.buffer().size() - 1);
  Reader c(cut);
  EXPECT_THROW(read_snapshot_header(c), WireError);
}

}  // namespace
}  // namespace sandbox::workers

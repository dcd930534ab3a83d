// The worker protocol's payloads (src/workers/worker_protocol.h): round trips, workspace replica
// updates that carry only what changed, memory changes in 4 KiB blocks (MemoryBaseline against
// the server's ShadowMemory), the refusals a compromised worker's messages meet, and how long the
// worker looks for the next call awake after each.
#include "workers/worker_protocol.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <random>

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <sandbox/clock.h>
#include <sandbox/protocol.h>

#include "workers/lane_area.h"
#include "workers/memory_baseline.h"
#include "workers/shadow_memory.h"

namespace sandbox::workers {
namespace {

// docs/security.md#calls-in-a-row: a worker's lane thread looks for the next call awake only
// after a call asked while few calls are in flight: after a restore for kWokenLaneSpin (its
// execute follows), after any other call for kCallsInARowSpin when it came within that long of
// the answer before it. A lane's first call, a call that came later, and every call asked with
// many in flight (their lane threads would spin on CPUs the other calls need) have none.
TEST(WorkerProtocol, AWorkerLooksForTheNextCallAfterARestoreAndAfterCallsInARow) {
  using std::chrono::microseconds;
  const auto asked = [](Kind k) { return static_cast<std::uint32_t>(k) | kAnnounceFlag; };
  const auto unasked = [](Kind k) { return static_cast<std::uint32_t>(k); };
  const std::optional<std::chrono::steady_clock::duration> first;
  const std::optional<std::chrono::steady_clock::duration> soon = microseconds(300);
  const std::optional<std::chrono::steady_clock::duration> late =
      kCallsInARowSpin + microseconds(1);
  EXPECT_EQ(next_call_look(asked(Kind::kRestore), first), kWokenLaneSpin);
  EXPECT_EQ(next_call_look(asked(Kind::kRestore), late), kWokenLaneSpin);
  EXPECT_EQ(next_call_look(unasked(Kind::kRestore), soon), microseconds(0));
  for (const Kind kind : {Kind::kRun, Kind::kBoot, Kind::kExecute, Kind::kSnapshot, Kind::kClose}) {
    EXPECT_EQ(next_call_look(asked(kind), soon), kCallsInARowSpin) << unasked(kind);
    EXPECT_EQ(next_call_look(asked(kind), kCallsInARowSpin), kCallsInARowSpin) << unasked(kind);
    EXPECT_EQ(next_call_look(asked(kind), late), microseconds(0)) << unasked(kind);
    EXPECT_EQ(next_call_look(asked(kind), first), microseconds(0)) << unasked(kind);
    EXPECT_EQ(next_call_look(unasked(kind), soon), microseconds(0)) << unasked(kind);
  }
}

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

// A ClassifiedError in the worker keeps its kind and wire message across the process boundary
// (docs/errors.md#exceptions-at-the-boundaries); a plain failure stays a runtime_error.
TEST(WorkerProtocol, AClassifiedFailureArrivesAsAnApiErrorOfItsKind) {
  Writer w;
  write_failure(w, Failure{FailureType::kClassified, "Stored snapshot is unreadable: torn",
                           ErrorKind::kInternal});
  Reader r(w.buffer());
  const Failure back = read_failure(r);
  r.finish();
  EXPECT_EQ(back.type, FailureType::kClassified);
  EXPECT_EQ(back.kind, ErrorKind::kInternal);
  try {
    throw_failure(back);
  } catch (const ApiError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInternal);
    EXPECT_EQ(e.status(), 500);
    EXPECT_STREQ(e.what(), "Stored snapshot is unreadable: torn");
  }
  try {
    throw_failure(Failure{FailureType::kError, "plain", ErrorKind::kInternal});
  } catch (const ApiError&) {
    ADD_FAILURE() << "a plain failure must not carry a kind";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "plain");
  }
}

TEST(WorkerProtocol, AnUnknownFailureTypeOrKindIsRefused) {
  for (const std::uint8_t type : {std::uint8_t{3}, std::uint8_t{255}}) {
    Writer w;
    w.u8(type);
    w.str("x");
    Reader r(w.buffer());
    EXPECT_THROW(static_cast<void>(read_failure(r)), WireError) << int(type);
  }
  Writer w;
  w.u8(static_cast<std::uint8_t>(FailureType::kClassified));
  w.str("x");
  w.u8(static_cast<std::uint8_t>(error_kinds().size()));  // one past the last kind
  Reader r(w.buffer());
  EXPECT_THROW(static_cast<void>(read_failure(r)), WireError);
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

TEST(WorkerProtocol, ChangesCarryTheListedBlocksAndMustMatchTheirBytes) {
  std::vector<std::uint8_t> memory(2 * kWasmPageBytes, 7);
  memory[17 * kChangeBlockBytes] = 9;
  SessionSnapshot snap{.handle = 9, .extra = {{"g", "x"}}, .memory = memory};
  const std::vector<std::uint32_t> blocks{3, 17};
  Writer w;
  write_changes(w, snap, &blocks);
  Reader r(w.buffer());
  const ChangesHeader h = read_changes_header(r);
  EXPECT_EQ(h.handle, 9u);
  EXPECT_EQ(h.extra.at("g"), "x");
  EXPECT_EQ(h.memory_pages, 2u);
  EXPECT_EQ(*h.blocks, blocks);
  ASSERT_EQ(r.left(), 2 * kChangeBlockBytes);
  EXPECT_EQ(static_cast<std::uint8_t>(r.raw(kChangeBlockBytes)[0]), 7);
  EXPECT_EQ(static_cast<std::uint8_t>(r.raw(kChangeBlockBytes)[0]), 9);
  std::string cut = w.buffer().substr(0, w.buffer().size() - 1);
  Reader c(cut);
  EXPECT_THROW(read_changes_header(c), WireError);
}

TEST(WorkerProtocol, ChangesInTheAreaAreReadFromIt) {
  std::vector<std::uint8_t> memory(2 * kWasmPageBytes, 7);
  memory[4 * kChangeBlockBytes] = 8;
  memory[17 * kChangeBlockBytes] = 9;
  SessionSnapshot snap{.handle = 9, .memory = memory};
  const std::vector<std::uint32_t> blocks{3, 4, 17};
  std::vector<char> area(3 * kChangeBlockBytes, 0);
  Writer w;
  write_changes(w, snap, &blocks, area);
  Reader r(w.buffer());
  const ChangesHeader h = read_changes_header(r, area.size());
  EXPECT_TRUE(h.in_area);
  EXPECT_EQ(*h.blocks, blocks);
  EXPECT_EQ(r.left(), 0u);  // the frame ends with the list
  EXPECT_EQ(area[0], 7);
  EXPECT_EQ(area[kChangeBlockBytes], 8);
  EXPECT_EQ(area[2 * kChangeBlockBytes], 9);
  // A reader whose area is smaller than the blocks claimed refuses the header: the bytes would
  // be read past its end.
  Reader small(w.buffer());
  EXPECT_THROW(read_changes_header(small, area.size() - 1), WireError);
  // Bytes after a header whose blocks are in the area are refused.
  std::string padded = w.buffer() + "x";
  Reader p(padded);
  EXPECT_THROW(read_changes_header(p, area.size()), WireError);

  // Blocks that do not fit the area travel in the frame.
  std::vector<char> one(kChangeBlockBytes, 0);
  Writer inline_w;
  write_changes(inline_w, snap, &blocks, one);
  Reader in(inline_w.buffer());
  const ChangesHeader ih = read_changes_header(in, one.size());
  EXPECT_FALSE(ih.in_area);
  EXPECT_EQ(in.left(), 3 * kChangeBlockBytes);
  EXPECT_EQ(one[0], 0);  // untouched
}

TEST(WorkerProtocol, ChangesWithoutAListCarryTheWholeMemory) {
  std::vector<std::uint8_t> memory(3 * kWasmPageBytes, 1);
  SessionSnapshot snap{.memory = memory};
  Writer w;
  write_changes(w, snap, nullptr);
  Reader r(w.buffer());
  const ChangesHeader h = read_changes_header(r);
  EXPECT_FALSE(h.blocks);
  EXPECT_EQ(r.left(), memory.size());
}

TEST(WorkerProtocol, ChangesListingBlocksOutOfOrderOrPastTheMemoryAreRefused) {
  std::vector<std::uint8_t> memory(kWasmPageBytes, 0);
  SessionSnapshot snap{.memory = memory};
  for (const std::vector<std::uint32_t>& blocks :
       {std::vector<std::uint32_t>{2, 1}, std::vector<std::uint32_t>{4, 4},
        std::vector<std::uint32_t>{kChangeBlocksPerPage}}) {
    // Written by hand: write_changes would read past the memory for the last list.
    Writer w;
    w.u64(0);
    w.str("{}");
    w.u32(1);
    w.boolean(true);
    w.u32(static_cast<std::uint32_t>(blocks.size()));
    for (const std::uint32_t b : blocks) w.u32(b);
    w.boolean(false);  // the bytes follow
    w.buffer().append(blocks.size() * kChangeBlockBytes, '\0');
    Reader r(w.buffer());
    EXPECT_THROW(read_changes_header(r), WireError);
  }
}

// The worker's baseline and the server's shadow agree after any sequence of steps: the shadow
// that takes each step's changes equals the worker's memory, and only blocks that changed
// travel.
class Baseline : public ::testing::Test {
 protected:
  static constexpr std::uint32_t kImagePages = 4;
  void SetUp() override {
    image_bytes_.assign(kImagePages * kWasmPageBytes, 0);
    for (std::size_t i = 0; i < image_bytes_.size(); i += 97) image_bytes_[i] = (i / 97) % 251 + 1;
    // Page 2 of the image is all zero.
    std::fill_n(image_bytes_.begin() + 2 * kWasmPageBytes, kWasmPageBytes, 0);
    base_.fingerprint = "f";
    base_.pages = kImagePages;
    for (std::uint32_t p = 0; p < kImagePages; ++p) {
      base_.page_bytes.push_back(p == 2 ? nullptr : image_bytes_.data() + p * kWasmPageBytes);
    }
    memory_ = image_bytes_;
    shadow_.reset(nullptr, kImagePages);
    for (std::uint32_t p = 0; p < kImagePages; ++p)
      shadow_.write_page(p, image_bytes_.data() + p * kWasmPageBytes);
    baseline_.start(hash_image_blocks(base_), kImagePages);
  }

  // One step's changes, taken by the baseline and applied to the shadow as the server does.
  std::optional<std::vector<std::uint32_t>> step(
      const std::optional<std::vector<std::uint32_t>>& written,
      const std::vector<std::uint16_t>& written_blocks = {}) {
    SessionSnapshot snap{.memory = memory_};
    auto blocks = baseline_.take_changes(memory_, written, written_blocks);
    Writer w;
    write_changes(w, snap, blocks ? &*blocks : nullptr);
    Reader r(w.buffer());
    const ChangesHeader h = read_changes_header(r);
    shadow_.resize(h.memory_pages);
    if (h.blocks) {
      for (const std::uint32_t b : *h.blocks)
        shadow_.write_block(b, r.raw(kChangeBlockBytes).data());
    } else {
      for (std::uint32_t p = 0; p < h.memory_pages; ++p)
        shadow_.write_page(p, r.raw(kWasmPageBytes).data());
    }
    r.finish();
    return blocks;
  }

  // 200 random steps (a few bytes changed, sometimes a page added, sometimes a page or block
  // reported written as it was), each taken as the server does; the shadow must equal the memory
  // after every one. With `report_blocks`, each step also says which block of a page it wrote.
  void random_steps(std::uint32_t seed, bool report_blocks) {
    std::mt19937 rng(seed);
    for (int round = 0; round < 200; ++round) {
      std::vector<std::uint32_t> written;
      std::vector<std::uint16_t> blocks;
      if (rng() % 10 == 0) memory_.resize(memory_.size() + kWasmPageBytes, 0);
      const auto pages = static_cast<std::uint32_t>(memory_.size() / kWasmPageBytes);
      for (int n = static_cast<int>(rng() % 6); n > 0; --n) {
        const std::size_t at = rng() % memory_.size();
        memory_[at] = static_cast<std::uint8_t>(rng());
        written.push_back(static_cast<std::uint32_t>(at / kWasmPageBytes));
        blocks.push_back(
            static_cast<std::uint16_t>(1U << (at % kWasmPageBytes / kChangeBlockBytes)));
      }
      if (rng() % 3 == 0) {  // written as it was
        written.push_back(rng() % pages);
        if (report_blocks) blocks.push_back(static_cast<std::uint16_t>(1U << (rng() % 16)));
      }
      step(written, report_blocks ? blocks : std::vector<std::uint16_t>{});
      ASSERT_TRUE(shadow_is_memory()) << "round " << round;
    }
  }

  bool shadow_is_memory() const {
    const auto view = shadow_.view();
    return view.size() == memory_.size() && std::equal(view.begin(), view.end(), memory_.begin());
  }

  std::vector<std::uint8_t> image_bytes_;
  SnapshotBase base_;
  std::vector<std::uint8_t> memory_;
  ShadowMemory shadow_{64 * kWasmPageBytes};
  MemoryBaseline baseline_;
};

TEST_F(Baseline, OnlyTheChangedBlocksOfAWrittenPageTravel) {
  memory_[3 * kWasmPageBytes + 5 * kChangeBlockBytes + 10] ^= 0xff;
  memory_[3 * kWasmPageBytes + 9 * kChangeBlockBytes] ^= 0xff;
  const auto blocks = step(std::vector<std::uint32_t>{3, 0, 3});
  ASSERT_TRUE(blocks);
  EXPECT_EQ(*blocks, (std::vector<std::uint32_t>{3 * 16 + 5, 3 * 16 + 9}));
  EXPECT_TRUE(shadow_is_memory());
  // Written again as it now is: nothing travels.
  EXPECT_EQ(*step(std::vector<std::uint32_t>{3}), std::vector<std::uint32_t>{});
  // Changed back to the image: the block travels again.
  memory_[3 * kWasmPageBytes + 9 * kChangeBlockBytes] ^= 0xff;
  EXPECT_EQ(*step(std::vector<std::uint32_t>{3}), std::vector<std::uint32_t>{3 * 16 + 9});
  EXPECT_TRUE(shadow_is_memory());
}

// With the written blocks of each page given (SessionSnapshot::dirty_blocks), those travel as
// they are, unhashed, even one written with the bytes it had; a changed block outside them does
// not (the engine promised it was not written).
TEST_F(Baseline, TheWrittenBlocksOfAPageTravelUnhashed) {
  memory_[1 * kWasmPageBytes + 2 * kChangeBlockBytes] ^= 0xff;
  memory_[1 * kWasmPageBytes + 7 * kChangeBlockBytes] ^= 0xff;
  const auto blocks = step(std::vector<std::uint32_t>{1, 1}, {1U << 2, 1U << 4});
  ASSERT_TRUE(blocks);
  EXPECT_EQ(*blocks, (std::vector<std::uint32_t>{1 * 16 + 2, 1 * 16 + 4}));
  // Reported as written now: it travels.
  EXPECT_EQ(*step(std::vector<std::uint32_t>{1}, {1U << 7}),
            std::vector<std::uint32_t>{1 * 16 + 7});
  EXPECT_TRUE(shadow_is_memory());
}

// A block sent unhashed is not known to the baseline: when a later step has its page hashed
// (written without a block mask), it travels once more, and from then on only when it changes.
TEST_F(Baseline, AnUnhashedBlockTravelsAgainWhenItsPageIsNextHashed) {
  memory_[3 * kWasmPageBytes + 6 * kChangeBlockBytes] ^= 0xff;
  EXPECT_EQ(*step(std::vector<std::uint32_t>{3}, {1U << 6}),
            std::vector<std::uint32_t>{3 * 16 + 6});
  // Not written since: a step that hashes the page still sends it, as its hash is unknown.
  EXPECT_EQ(*step(std::vector<std::uint32_t>{3}), std::vector<std::uint32_t>{3 * 16 + 6});
  EXPECT_EQ(*step(std::vector<std::uint32_t>{3}), std::vector<std::uint32_t>{});
  // Hashed blocks of the same page stay known around an unhashed one.
  memory_[3 * kWasmPageBytes + 1 * kChangeBlockBytes] ^= 0xff;
  EXPECT_EQ(*step(std::vector<std::uint32_t>{3}, {1U << 9}),
            std::vector<std::uint32_t>{3 * 16 + 9});
  EXPECT_EQ(*step(std::nullopt), (std::vector<std::uint32_t>{3 * 16 + 1, 3 * 16 + 9}));
  EXPECT_EQ(*step(std::nullopt), std::vector<std::uint32_t>{});
  EXPECT_TRUE(shadow_is_memory());
}

TEST_F(Baseline, WithoutWriteTrackingEveryPageIsCompared) {
  memory_[2 * kWasmPageBytes + 1] = 1;  // a zero page of the image
  const auto blocks = step(std::nullopt);
  ASSERT_TRUE(blocks);
  EXPECT_EQ(*blocks, std::vector<std::uint32_t>{2 * 16});
  EXPECT_TRUE(shadow_is_memory());
}

TEST_F(Baseline, GrownPagesTravelOnlyWhereNotZero) {
  memory_.resize(7 * kWasmPageBytes, 0);
  memory_[6 * kWasmPageBytes + 15 * kChangeBlockBytes] = 4;
  const auto blocks = step(std::vector<std::uint32_t>{4, 5, 6});
  ASSERT_TRUE(blocks);
  EXPECT_EQ(*blocks, std::vector<std::uint32_t>{6 * 16 + 15});
  EXPECT_TRUE(shadow_is_memory());
}

TEST_F(Baseline, AnUnknownBaselineOrAShrunkMemorySendsEverythingOnce) {
  baseline_.forget();
  EXPECT_FALSE(step(std::vector<std::uint32_t>{}));
  EXPECT_TRUE(shadow_is_memory());
  EXPECT_EQ(*step(std::nullopt), std::vector<std::uint32_t>{});  // known again
  memory_.resize(2 * kWasmPageBytes);
  EXPECT_FALSE(step(std::vector<std::uint32_t>{}));
  EXPECT_TRUE(shadow_is_memory());
}

TEST_F(Baseline, RestoredPagesAreTheBaselineOfTheNextStep) {
  // As after a restore: every block of page 1 was sent with other bytes, and every block of
  // page 0 as zeros (a page of the image that is zero in the snapshot).
  std::vector<std::uint8_t> sent(kWasmPageBytes, 0x5a);
  const std::vector<std::uint8_t> zero(kWasmPageBytes, 0);
  baseline_.start(hash_image_blocks(base_), kImagePages);
  for (std::uint32_t b = 0; b < kChangeBlocksPerPage; ++b) {
    baseline_.set_block(16 + b, sent.data() + std::size_t{b} * kChangeBlockBytes);
    baseline_.set_block(b, zero.data() + std::size_t{b} * kChangeBlockBytes);
  }
  std::copy(sent.begin(), sent.end(), memory_.begin() + kWasmPageBytes);
  std::fill_n(memory_.begin(), kWasmPageBytes, 0);
  shadow_.write_page(1, sent.data());
  shadow_.write_page(0, zero.data());
  ASSERT_TRUE(shadow_is_memory());
  EXPECT_EQ(*step(std::vector<std::uint32_t>{0, 1, 2, 3}), std::vector<std::uint32_t>{});
  memory_[kWasmPageBytes + 3] = 0;
  EXPECT_EQ(*step(std::vector<std::uint32_t>{1}), std::vector<std::uint32_t>{16});
  EXPECT_TRUE(shadow_is_memory());
}

TEST_F(Baseline, BlocksSentOnRestoreAreTheBaselineOfTheNextStep) {
  // As after a restore that sent two blocks over the image: they travel again only when they
  // change.
  std::vector<std::uint8_t> block(kChangeBlockBytes, 0x33);
  baseline_.start(hash_image_blocks(base_), kImagePages);
  for (const std::uint32_t b : {1u * 16 + 2, 2u * 16 + 15}) {
    baseline_.set_block(b, block.data());
    std::copy(block.begin(), block.end(), memory_.begin() + std::size_t{b} * kChangeBlockBytes);
    shadow_.write_block(b, block.data());
  }
  ASSERT_TRUE(shadow_is_memory());
  EXPECT_EQ(*step(std::vector<std::uint32_t>{0, 1, 2, 3}), std::vector<std::uint32_t>{});
  memory_[(2 * 16 + 15) * kChangeBlockBytes] = 0;
  EXPECT_EQ(*step(std::vector<std::uint32_t>{2}), std::vector<std::uint32_t>{2 * 16 + 15});
  EXPECT_TRUE(shadow_is_memory());
}

TEST(WorkerProtocol, ARestoreSourceCarriesTheSnapshotsMetadata) {
  SnapshotSource source;
  source.handle = 3;
  source.extra = {{"g", "y"}};
  source.memory_pages = 2;
  source.base_delta_pages = std::vector<std::uint32_t>{1};
  source.base_fingerprint = "abc";
  Writer w;
  write_restore_source(w, source, true, 1, true);
  Reader r(w.buffer());
  const RestoreSource back = read_restore_source(r);
  r.finish();
  EXPECT_EQ(back.handle, 3u);
  EXPECT_EQ(back.extra, source.extra);
  EXPECT_EQ(back.memory_pages, 2u);
  EXPECT_EQ(*back.base_delta_pages, std::vector<std::uint32_t>{1});
  EXPECT_EQ(back.base_fingerprint, "abc");
  EXPECT_EQ(back.server_cpu, std::optional<std::uint32_t>(1));
  EXPECT_TRUE(back.streamed);
  // Not a delta, no CPU named, and its one piece in the frame: the worker reads every page.
  Writer whole;
  write_restore_source(whole, source, false, std::nullopt, false);
  write_restore_piece(whole, std::vector<std::uint32_t>{3}, std::nullopt);
  whole.buffer().append(kChangeBlockBytes, 'z');
  Reader rw(whole.buffer());
  const RestoreSource one = read_restore_source(rw);
  EXPECT_FALSE(one.base_delta_pages.has_value());
  EXPECT_FALSE(one.server_cpu.has_value());
  EXPECT_FALSE(one.streamed);
  EXPECT_EQ(read_restore_piece(rw, one.memory_pages, 0).blocks, std::vector<std::uint32_t>{3});
  rw.finish();
}

TEST(WorkerProtocol, ARestorePieceCarriesItsBlocksInTheFrameOrInTheArea) {
  Writer w;
  write_restore_piece(w, std::vector<std::uint32_t>{17, 20}, std::nullopt);
  w.buffer().append(2 * kChangeBlockBytes, 'z');
  {
    Reader r(w.buffer());
    const RestorePiece back = read_restore_piece(r, 2, 0);
    r.finish();
    EXPECT_EQ(back.blocks, (std::vector<std::uint32_t>{17, 20}));
    EXPECT_EQ(back.bytes.size(), 2 * kChangeBlockBytes);
    EXPECT_FALSE(back.area_offset.has_value());
  }
  // A block past the memory (2 pages: blocks 0-31) is refused, as are blocks out of order.
  for (const std::vector<std::uint32_t>& bad :
       {std::vector<std::uint32_t>{32}, std::vector<std::uint32_t>{20, 17}}) {
    Writer wb;
    write_restore_piece(wb, bad, std::nullopt);
    wb.buffer().append(bad.size() * kChangeBlockBytes, 'z');
    Reader rb(wb.buffer());
    EXPECT_THROW(read_restore_piece(rb, 2, 0), WireError);
  }
  // In the area: the frame ends with the list and the offset, which must leave room for the
  // blocks in the area the worker has.
  Writer in_area;
  write_restore_piece(in_area, std::vector<std::uint32_t>{3, 17}, kChangeBlockBytes);
  {
    Reader r(in_area.buffer());
    const RestorePiece back = read_restore_piece(r, 2, 3 * kChangeBlockBytes);
    r.finish();
    EXPECT_EQ(back.area_offset, std::optional<std::size_t>(kChangeBlockBytes));
    EXPECT_TRUE(back.bytes.empty());
  }
  Reader small(in_area.buffer());
  EXPECT_THROW(read_restore_piece(small, 2, 2 * kChangeBlockBytes), WireError);
  Writer huge;
  write_restore_piece(huge, std::vector<std::uint32_t>{3}, std::numeric_limits<std::size_t>::max());
  Reader rh(huge.buffer());
  EXPECT_THROW(read_restore_piece(rh, 2, kLaneAreaBytes), WireError);
  // The last piece: no blocks.
  Writer end;
  write_restore_piece(end, std::vector<std::uint32_t>{}, std::nullopt);
  Reader re(end.buffer());
  EXPECT_TRUE(read_restore_piece(re, 2, 0).blocks.empty());
  re.finish();
}

TEST_F(Baseline, RandomStepsKeepTheShadowEqualToTheMemory) { random_steps(7, false); }

TEST_F(Baseline, RandomStepsWithWrittenBlocksKeepTheShadowEqualToTheMemory) {
  random_steps(8, true);
}

}  // namespace
}  // namespace sandbox::workers

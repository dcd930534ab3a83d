// The context state machine (interpreter/context_lifecycle.h) without HTTP: each transition of
// docs/contexts.md driven on its own, over real SQLite, with the kv engine (a real Wasm session
// engine) and, where a host bug must be provoked, the fake session engine.
#include "interpreter/context_lifecycle.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "interpreter/resident_cache.h"
#include "kv_engine.h"
#include "storage/fault_injector.h"
#include "storage/sqlite/sqlite_stores.h"
#include "storage/storage_error.h"
#include "support/fake_session_engine.h"

namespace sandbox {
namespace {

// Fails the Nth write statement of the storage, once, as a storage backend does (StorageError).
class FailNth final : public FaultInjector {
 public:
  void arm(int n) { remaining_ = n; }
  void before_write(std::string_view) override {
    if (remaining_ > 0 && --remaining_ == 0) throw StorageError("injected write failure");
  }

 private:
  int remaining_ = 0;
};

std::string text(const InterpreterExecuteResponse& r) {
  return r.result.outcome.results.empty() ? "" : r.result.outcome.results[0].text.value_or("");
}

class ContextLifecycleTest : public ::testing::Test {
 protected:
  ContextLifecycleTest()
      : dir_(std::filesystem::temp_directory_path() /
             ("lifecycle-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    sqlite_options_.fault_injector = &fault_;
    open(engines::make_kv_engine());
  }
  ~ContextLifecycleTest() override {
    state_.reset();
    lifecycle_.reset();
    residents_.reset();
    storage_.reset();
    std::filesystem::remove_all(dir_);
  }

  // A fresh server-side world over the same database (what a restart sees).
  void open(Engine engine, ContextLifecycleOptions options = {.idle_ttl_ms = 10'000}) {
    if (state_ && residents_) residents_->close_all();
    state_.reset();
    lifecycle_.reset();
    residents_.reset();
    storage_.reset();
    engine_ = std::move(engine);
    storage_ = std::make_unique<SqliteStorage>((dir_ / "db.sqlite").string(), sqlite_options_);
    residents_ = std::make_unique<ResidentCache>(clock_, 16);
    lifecycle_ = std::make_unique<ContextLifecycle>(engine_, store(), clock_, *residents_,
                                                    std::move(options));
    state_ = residents_->state_for(kKey);
  }

  InterpreterStore& store() { return storage_->interpreters(); }
  KeyState& state() { return *state_; }

  ContextRow create(const std::string& id) {
    lifecycle_->ensure_meta(kKey, state());
    return lifecycle_->create_context(kKey, state(), NewContext{id});
  }
  ContextRow row(const std::string& id) {
    auto r = lifecycle_->load_row(kKey, id);
    EXPECT_TRUE(r) << id;
    return r ? *r : ContextRow{};
  }
  // One round in `id` (the transition run(), no reconcile: the mirror is as the test left it).
  InterpreterExecuteResponse run(const std::string& code, const std::string& id = "ctx-1") {
    ContextRow r = row(id);
    return lifecycle_->run(kKey, state(), r, InterpreterExecuteArgs{id, code, {}, {}});
  }

  static constexpr const char* kKey = "key-1";
  std::filesystem::path dir_;
  FailNth fault_;
  SqliteOptions sqlite_options_;
  ManualClock clock_{1'700'000'000'000};
  Engine engine_;
  std::unique_ptr<SqliteStorage> storage_;
  std::unique_ptr<ResidentCache> residents_;
  std::unique_ptr<ContextLifecycle> lifecycle_;
  std::shared_ptr<KeyState> state_;
};

TEST_F(ContextLifecycleTest, CreateWritesARowWithoutRecordOrInstance) {
  const ContextRow created = create("ctx-1");
  EXPECT_EQ(created.cwd, "/workspace");
  EXPECT_EQ(created.created_at, iso8601_ms(clock_.now_ms()));
  const ContextRow stored = row("ctx-1");
  EXPECT_EQ(stored.executions, 0u);
  EXPECT_FALSE(stored.snapshot);
  EXPECT_FALSE(state().resident);
  EXPECT_TRUE(store().get_alarm(kKey));  // CL13: create touches
}

TEST_F(ContextLifecycleTest, TheFirstRoundBootsAndStoresAFreshSnapshot) {
  create("ctx-1");
  const auto r = run("incr n");
  EXPECT_EQ(text(r), "1");
  ASSERT_TRUE(state().resident);
  EXPECT_EQ(state().resident->context_id, "ctx-1");
  ASSERT_TRUE(r.context.snapshot_ms);
  const ContextRow stored = row("ctx-1");
  EXPECT_EQ(stored.executions, 1u);
  ASSERT_TRUE(stored.snapshot);
  EXPECT_FALSE(stored.snapshot->stale);
  EXPECT_EQ(stored.snapshot->build, engine_.build);
  EXPECT_FALSE(store().read_chunks(kKey, "ctx-1").empty());
}

// A record's encodedBytes is what its chunk rows take in the store, after a boot, a step and
// a restore alike (the restored resident counts the rows it read).
TEST_F(ContextLifecycleTest, TheRecordsEncodedBytesIsWhatItsRowsTake) {
  const auto stored_size = [this](const std::string& context) {
    std::uint64_t n = 0;
    for (const auto& [chunk, data] : store().read_chunks(kKey, context)) n += data.size();
    return n;
  };
  create("ctx-1");
  create("ctx-2");
  run("set v one");
  ASSERT_TRUE(row("ctx-1").snapshot->encoded_bytes);
  EXPECT_GT(*row("ctx-1").snapshot->encoded_bytes, 0u);
  EXPECT_EQ(row("ctx-1").snapshot->encoded_bytes, stored_size("ctx-1"));
  run("set w two");
  EXPECT_EQ(row("ctx-1").snapshot->encoded_bytes, stored_size("ctx-1"));
  run("set x three", "ctx-2");  // ctx-1's instance goes
  run("set y four", "ctx-1");   // restored
  EXPECT_EQ(row("ctx-1").snapshot->encoded_bytes, stored_size("ctx-1"));
  EXPECT_EQ(row("ctx-2").snapshot->encoded_bytes, stored_size("ctx-2"));
  // What a caller sees of it.
  EXPECT_EQ(snapshot_info(*row("ctx-1").snapshot).encoded_bytes, stored_size("ctx-1"));
}

TEST_F(ContextLifecycleTest, MakeLiveReusesRestoresOrBoots) {
  create("ctx-1");
  create("ctx-2");
  run("set v one");
  SessionInstance* first = state().resident->instance.get();
  ContextRow r1 = row("ctx-1");
  EXPECT_EQ(lifecycle_->make_live(kKey, state(), r1).instance.get(), first);  // reuse (CL3)

  ContextRow r2 = row("ctx-2");
  lifecycle_->make_live(kKey, state(), r2);  // boot: ctx-2 has no record; ctx-1's goes (CL2)
  EXPECT_EQ(state().resident->context_id, "ctx-2");

  EXPECT_EQ(text(run("get v", "ctx-1")), "one");  // restored from ctx-1's snapshot
  EXPECT_EQ(state().resident->context_id, "ctx-1");
}

TEST_F(ContextLifecycleTest, ARestartContinuesFromTheStoredSnapshot) {
  create("ctx-1");
  run("incr n");
  run("incr n");
  open(engines::make_kv_engine());
  EXPECT_EQ(text(run("incr n")), "3");
  EXPECT_EQ(row("ctx-1").executions, 3u);
}

TEST_F(ContextLifecycleTest, AForeignBuildRecordIsDiscardedThenTheContextBoots) {
  create("ctx-1");
  run("set v old");
  Engine other = engines::make_kv_engine();
  other.build += "-next";
  open(std::move(other));
  ContextRow r = row("ctx-1");
  ASSERT_TRUE(r.snapshot);
  lifecycle_->make_live(kKey, state(), r);  // CL4
  EXPECT_FALSE(r.snapshot);
  EXPECT_TRUE(store().read_chunks(kKey, "ctx-1").empty());
  const auto fresh = run("get v");
  ASSERT_TRUE(fresh.result.outcome.error);  // the old value is gone
  EXPECT_EQ(fresh.result.outcome.error->name, "KeyError");
  EXPECT_EQ(fresh.context.snapshot->build, engine_.build);
}

TEST_F(ContextLifecycleTest, AGuestErrorRollsTheMirrorBackAndIsStillSnapshotted) {
  create("ctx-1");
  const auto r = run("set v 1\nwrite /workspace/a.txt hello\nfail on purpose");
  ASSERT_TRUE(r.result.outcome.error);
  EXPECT_TRUE(r.files.empty());  // CL5
  EXPECT_FALSE(state().mirror->exists("/workspace/a.txt"));
  ASSERT_TRUE(state().resident);  // kept
  EXPECT_TRUE(r.context.snapshot_ms);
  EXPECT_EQ(text(run("get v")), "1");
}

TEST_F(ContextLifecycleTest, FuelExhaustionDropsTheInstanceAndLeavesTheRecord) {
  create("ctx-1");
  const auto first = run("incr n");
  const auto spun = run("incr n\nspin");
  ASSERT_TRUE(spun.result.outcome.error);
  EXPECT_EQ(spun.result.outcome.error->name, "ExecutionLimitError");
  EXPECT_FALSE(state().resident);          // CL6: the kv session is invalid after it
  EXPECT_FALSE(spun.context.snapshot_ms);  // CL7
  const ContextRow stored = row("ctx-1");
  EXPECT_EQ(stored.executions, 2u);  // CL9: the row is written anyway
  EXPECT_EQ(stored.snapshot->taken_at, first.context.snapshot->taken_at);
  EXPECT_FALSE(stored.snapshot->stale);
  EXPECT_EQ(text(run("get n")), "1");  // the last good snapshot
}

TEST_F(ContextLifecycleTest, AnOpenFileMarksTheRecordStaleUntilTheNextSnapshot) {
  create("ctx-1");
  state().mirror->write("/workspace/f.txt", "data");
  run("set v 1");
  const auto held = run("open /workspace/f.txt");
  EXPECT_FALSE(held.context.snapshot_ms);
  EXPECT_TRUE(row("ctx-1").snapshot->stale);  // CL8
  const auto closed = run("close");
  EXPECT_TRUE(closed.context.snapshot_ms);
  EXPECT_FALSE(row("ctx-1").snapshot->stale);
}

TEST_F(ContextLifecycleTest, MarkStaleLeavesAMissingOrStaleRecordAlone) {
  ContextRow r;
  ContextLifecycle::mark_stale(r);
  EXPECT_FALSE(r.snapshot);
  r.snapshot = SnapshotRecord{};
  ContextLifecycle::mark_stale(r);
  EXPECT_TRUE(r.snapshot->stale);
}

// CL6 (docs/contexts.md#store-failure): a round whose snapshot is not stored is not answered.
TEST_F(ContextLifecycleTest, AFailedSnapshotWriteDropsTheInstanceAndFailsTheRound) {
  create("ctx-1");
  run("incr n");
  fault_.arm(1);  // the next write: the snapshot of the next round
  EXPECT_THROW(run("incr n"), StorageError);
  fault_.arm(0);
  EXPECT_FALSE(state().resident);         // CL6
  EXPECT_EQ(row("ctx-1").executions, 1);  // CL9: the row was not written
  EXPECT_EQ(text(run("get n")), "1");     // continues from disk, not from lost memory
}

// CL6: the same when the snapshot cannot be taken but the row write fails (the stale mark).
TEST_F(ContextLifecycleTest, AFailedRowWriteAfterALimitRoundFailsTheRound) {
  test::FakeEngineStats stats;
  open(test::make_fake_session_engine(stats, "fake-1"));
  create("ctx-1");
  run("incr");
  fault_.arm(1);  // the row write of the limit round (no snapshot: CL7)
  EXPECT_THROW(run("limit"), StorageError);
  fault_.arm(0);
  EXPECT_FALSE(state().resident);
  EXPECT_EQ(row("ctx-1").executions, 1);
  EXPECT_EQ(text(run("get")), "1");
}

TEST_F(ContextLifecycleTest, AThrowingExecuteDropsTheInstance) {
  test::FakeEngineStats stats;
  open(test::make_fake_session_engine(stats, "fake-1"));
  create("ctx-1");
  run("incr");
  const auto r = run("throw");
  ASSERT_TRUE(r.result.outcome.error);
  EXPECT_EQ(r.result.outcome.error->name, "EngineError");
  EXPECT_FALSE(state().resident);  // CL6
  EXPECT_EQ(text(run("get")), "1");
}

TEST_F(ContextLifecycleTest, ALimitRoundKeepsAValidInstanceButStoresNothing) {
  test::FakeEngineStats stats;
  open(test::make_fake_session_engine(stats, "fake-1"));
  create("ctx-1");
  const auto first = run("incr");
  const auto limited = run("limit");
  ASSERT_TRUE(state().resident);  // still valid: kept
  EXPECT_FALSE(limited.context.snapshot_ms);
  EXPECT_EQ(row("ctx-1").snapshot->taken_at, first.context.snapshot->taken_at);  // CL7
  EXPECT_FALSE(row("ctx-1").snapshot->stale);
  EXPECT_EQ(text(run("get")), "2");  // memory ahead of disk ...
  open(test::make_fake_session_engine(stats, "fake-1"));
  EXPECT_EQ(text(run("get")), "2");  // ... until the next snapshot stored both rounds
}

TEST_F(ContextLifecycleTest, DropIfInvalidOnlyDropsThisContextsInvalidResident) {
  test::FakeEngineStats stats;
  open(test::make_fake_session_engine(stats, "fake-1"));
  create("ctx-1");
  run("incr");
  EXPECT_FALSE(lifecycle_->drop_if_invalid(state(), row("ctx-1")));  // valid
  static_cast<test::FakeInstance&>(*state().resident->instance).execute({"trap", {}});
  ContextRow other;
  other.id = "ctx-2";
  EXPECT_FALSE(lifecycle_->drop_if_invalid(state(), other));  // another context's row
  EXPECT_TRUE(state().resident);
  EXPECT_TRUE(lifecycle_->drop_if_invalid(state(), row("ctx-1")));
  EXPECT_FALSE(state().resident);
}

TEST_F(ContextLifecycleTest, ExecuteAsksForMissingFilesWithoutRunningOrTouching) {
  open(engines::make_kv_engine(), {.idle_ttl_ms = 0});
  create("ctx-1");
  const InterpreterExecuteArgs args{"ctx-1",
                                    "read /workspace/a.txt",
                                    {},
                                    {{}, {{"/workspace/a.txt", "0000000000000000"}}, false}};
  const std::vector<SyncFile> none;
  auto outcome = lifecycle_->execute(kKey, state(), args, &none, nullptr);
  ASSERT_TRUE(std::holds_alternative<std::vector<std::string>>(outcome));
  EXPECT_EQ(std::get<std::vector<std::string>>(outcome),
            std::vector<std::string>{"/workspace/a.txt"});
  EXPECT_EQ(row("ctx-1").executions, 0u);
  EXPECT_FALSE(state().resident);

  Workspace caller(clock_);
  caller.write("/workspace/a.txt", "pushed");
  const InterpreterExecuteArgs synced{
      "ctx-1", "read /workspace/a.txt", {}, {{}, caller.manifest().files, false}};
  const std::vector<SyncFile> files{
      SyncFile{"/workspace/a.txt", std::vector<std::uint8_t>{'p', 'u', 's', 'h', 'e', 'd'}, 5}};
  outcome = lifecycle_->execute(kKey, state(), synced, &files, nullptr);
  ASSERT_TRUE(std::holds_alternative<InterpreterExecuteResponse>(outcome));
  EXPECT_EQ(text(std::get<InterpreterExecuteResponse>(outcome)), "pushed");
}

TEST_F(ContextLifecycleTest, ExecuteOnAMissingContextIsNotFound) {
  const InterpreterExecuteArgs args{"nope", "get v", {}, {}};
  try {
    lifecycle_->execute(kKey, state(), args, nullptr, nullptr);
    FAIL() << "no error";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.to_response(0).http_status, 404);
    EXPECT_EQ(e.to_response(0).code, ErrorCode::kContextNotFound);
  }
}

TEST_F(ContextLifecycleTest, DeleteClosesTheResidentAndRemovesRowAndChunks) {
  create("ctx-1");
  run("incr n");
  ASSERT_TRUE(state().resident);
  lifecycle_->delete_context(kKey, state(), "ctx-1");
  EXPECT_FALSE(state().resident);
  EXPECT_FALSE(lifecycle_->load_row(kKey, "ctx-1"));
  EXPECT_TRUE(store().read_chunks(kKey, "ctx-1").empty());
  EXPECT_THROW(lifecycle_->delete_context(kKey, state(), "ctx-1"), ApiError);
}

TEST_F(ContextLifecycleTest, WipeForgetsEverythingStoredAndCached) {
  create("ctx-1");
  state().mirror->write("/workspace/f.txt", "x");
  run("incr n");
  lifecycle_->wipe(kKey, state());  // CL12
  EXPECT_FALSE(state().resident);
  EXPECT_FALSE(state().mirror->exists("/workspace/f.txt"));
  EXPECT_FALSE(state().meta_ensured);
  EXPECT_FALSE(store().get_meta(kKey));
  EXPECT_TRUE(store().list_contexts(kKey).empty());
  EXPECT_FALSE(store().get_alarm(kKey));
}

TEST_F(ContextLifecycleTest, TakeOverDropsCachedStateOnlyForANewToken) {
  create("ctx-1");
  run("incr n");
  lifecycle_->take_over(state(), 0);  // the token the actor already has
  EXPECT_TRUE(state().resident);
  EXPECT_TRUE(state().meta_ensured);
  lifecycle_->take_over(state(), 7);  // CL11
  EXPECT_FALSE(state().resident);
  EXPECT_FALSE(state().meta_ensured);
  EXPECT_FALSE(state().alarm_cache);
  EXPECT_EQ(state().lease_token, 7);
  EXPECT_EQ(text(run("get n")), "1");  // reloaded from storage
}

TEST_F(ContextLifecycleTest, TouchArmsAndAnIdleKeyExpires) {
  create("ctx-1");  // touches: armed at now + TTL
  const std::int64_t armed = *store().get_alarm(kKey);
  EXPECT_EQ(armed, clock_.now_ms() + 10'000);
  clock_.advance(500);
  EXPECT_EQ(lifecycle_->touch(kKey, state()), armed);  // under a tenth of the TTL: kept
  EXPECT_FALSE(lifecycle_->expire_if_idle(kKey, state(), clock_.now_ms()));  // not due
  clock_.advance(9'500);
  EXPECT_TRUE(lifecycle_->expire_if_idle(kKey, state(), clock_.now_ms()));
  EXPECT_FALSE(store().get_meta(kKey));
  EXPECT_TRUE(store().list_contexts(kKey).empty());
}

TEST_F(ContextLifecycleTest, ADueAlarmWithRecentActivityIsMovedNotWiped) {
  create("ctx-1");
  clock_.advance(2'000);
  lifecycle_->touch(kKey, state());  // re-armed: lastUsed = now
  const std::int64_t last = clock_.now_ms();
  store().set_alarm(kKey, last - 1);  // an alarm that fires early
  EXPECT_FALSE(lifecycle_->expire_if_idle(kKey, state(), last));
  EXPECT_EQ(store().get_alarm(kKey), last + 10'000);
  EXPECT_EQ(state().alarm_cache, last + 10'000);
  EXPECT_TRUE(lifecycle_->load_row(kKey, "ctx-1"));
}

// CL13: an execution answered with a result touches the idle alarm whatever the result holds (a
// guest error, a limit: both are 200 answers the caller acted on); a request that fails does not.
TEST_F(ContextLifecycleTest, AnAnsweredExecuteTouchesEvenWithAGuestErrorOrALimit) {
  create("ctx-1");  // armed at now + TTL
  const auto execute = [&](const std::string& id, const std::string& code) {
    return lifecycle_->execute(kKey, state(), InterpreterExecuteArgs{id, code, {}, {}}, nullptr,
                               nullptr);
  };
  const auto error_of = [](const ContextExecuteOutcome& outcome) {
    const auto* response = std::get_if<InterpreterExecuteResponse>(&outcome);
    return response && response->result.outcome.error ? response->result.outcome.error->name
                                                      : std::string("(no error)");
  };

  clock_.advance(2'000);  // past a tenth of the TTL, so a touch moves the alarm
  EXPECT_NE(error_of(execute("ctx-1", "fail on purpose")), "(no error)");
  EXPECT_EQ(store().get_alarm(kKey), clock_.now_ms() + 10'000);

  clock_.advance(2'000);
  EXPECT_EQ(error_of(execute("ctx-1", "spin")), "ExecutionLimitError");
  EXPECT_EQ(store().get_alarm(kKey), clock_.now_ms() + 10'000);

  clock_.advance(2'000);
  const auto armed = store().get_alarm(kKey);
  EXPECT_THROW(execute("nope", "get v"), ApiError);
  EXPECT_EQ(store().get_alarm(kKey), armed);
}

TEST_F(ContextLifecycleTest, AZeroTtlClearsTheAlarm) {
  create("ctx-1");
  ASSERT_TRUE(store().get_alarm(kKey));
  open(engines::make_kv_engine(), {.idle_ttl_ms = 0});
  EXPECT_FALSE(lifecycle_->touch(kKey, state()));
  EXPECT_FALSE(store().get_alarm(kKey));
}

}  // namespace
}  // namespace sandbox

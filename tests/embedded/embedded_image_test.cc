// The post-initialisation image under the built-in ABI (the ABI probe guest): what stateless
// runs and new sessions start from, when an instance may be reused, and the build id.
#include <atomic>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "embedded/abi_driver.h"
#include "embedded/image.h"
#include "embedded/sha256.h"
#include "embedded_test_util.h"

namespace sandbox {
namespace {

using namespace testing_embedded;

std::string failure_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no exception";
}

TEST(EmbeddedImage, StatelessRunsShareNoStateWhileInstancesAreReused) {
  const Engine engine = probe_engine();
  for (int i = 0; i < 6; ++i) {
    SCOPED_TRACE(i);
    const EngineOutcome before = engine.run(req("get x"));
    ASSERT_TRUE(before.error);
    EXPECT_EQ(before.error->name, "KeyError");
    EXPECT_EQ(text_of(engine.run(req("set x " + std::to_string(i) + "\nzerodata\nget x"))),
              std::to_string(i));
    // The data segment the previous run zeroed is back.
    EXPECT_NE(text_of(engine.run(req("datasum"))), "0");
  }
}

TEST(EmbeddedImage, EnvVarsArePerRunAlthoughTheImageHasNone) {
  const Engine engine = probe_engine();
  EXPECT_EQ(text_of(engine.run(req("env A", {{"A", "first"}}))), "first");
  EXPECT_EQ(text_of(engine.run(req("env A"))), "<unset>");
  EXPECT_EQ(text_of(engine.run(req("env A", {{"A", "second"}, {"B", "b"}}))), "second");
  EXPECT_EQ(text_of(engine.run(req("env B"))), "<unset>");
}

TEST(EmbeddedImage, EveryCopyOfTheImageReseedsItsRandomNumbers) {
  const Engine engine = probe_engine();
  std::set<std::string> drawn;
  for (int i = 0; i < 8; ++i) drawn.insert(text_of(engine.run(req("random"))));
  EXPECT_EQ(drawn.size(), 8u);
  // Each run is a copy of the image: after_restore ran exactly once on it (after the image's
  // own warm-up call).
  EXPECT_EQ(text_of(engine.run(req("restores"))), "2");
  EXPECT_EQ(text_of(engine.run(req("restores"))), "2");

  ManualClock clock;
  Workspace ws(clock);
  auto a = engine.sessions->boot(SessionOptions{.workspace = &ws});
  auto b = engine.sessions->boot(SessionOptions{.workspace = &ws});
  const std::string from_a = text_of(a->execute(req("random")));
  EXPECT_NE(from_a, text_of(b->execute(req("random"))));
  EXPECT_EQ(drawn.count(from_a), 0u);
  // Two restores of one snapshot do not replay each other either.
  const StoredSnapshot snap = StoredSnapshot::of(*a);
  auto c = engine.sessions->restore(SessionOptions{.workspace = &ws}, snap.source());
  auto d = engine.sessions->restore(SessionOptions{.workspace = &ws}, snap.source());
  EXPECT_NE(text_of(c->execute(req("random"))), text_of(d->execute(req("random"))));
}

TEST(EmbeddedImage, AfterATrapTheNextRunStartsFromTheImage) {
  const Engine engine = probe_engine();
  EXPECT_NE(failure_message([&] {
              static_cast<void>(engine.run(req("set x 1\ntrap")));
            }).find("nreachable"),
            std::string::npos);
  EXPECT_EQ(failure_message([&] { static_cast<void>(engine.run(req("set x 2\nexit 3"))); }),
            "exit with exit code 3");
  EXPECT_EQ(failure_message([&] { static_cast<void>(engine.run(req("set x 3\nspin"))); }),
            "Execution fuel exhausted");
  for (int i = 0; i < 3; ++i) {
    const EngineOutcome o = engine.run(req("get x"));
    ASSERT_TRUE(o.error);
    EXPECT_EQ(o.error->name, "KeyError");
  }
}

TEST(EmbeddedImage, StatelessRunsSeeADisabledWorkspace) {
  const Engine engine = probe_engine();
  const EngineOutcome o = engine.run(req("open /workspace/anything"));
  ASSERT_TRUE(o.error);
  EXPECT_EQ(o.error->name, "OSError");
  EXPECT_EQ(o.error->message, "Permission denied");
  // The read-only mounts are there.
  EXPECT_FALSE(engine.run(req("open /dev/null")).error);
}

// Regression (issue 12): os.close(3) in Python or io.stdout:close() in Lua returned the instance
// to the pool with its fixed descriptors closed, and every later run on it lost stdout or the
// standard library ("Bad file descriptor: '/stdlib/python311.zip'") until a restart.
TEST(EmbeddedImage, AReusedInstanceGetsBackTheDescriptorsARunClosed) {
  EmbeddedLanguage language = probe_language();
  language.idle_instances = 1;  // every run reuses the one instance
  const Engine engine = probe_engine(std::move(language));
  const std::string uses_them_all =
      "print out\neprint err\nopen /stdlib\nopen /dev/null\ncloseall\ntext ok";
  for (const char* closing :
       {"closefd 0", "closefd 1", "closefd 2", "closefd 3", "closefd 4", "closefd 5",
        "closefd 1\nclosefd 2", "open /dev/null\nrenumber 1 6"}) {
    SCOPED_TRACE(closing);
    (void)engine.run(req(closing));
    for (int i = 0; i < 2; ++i) {
      const EngineOutcome next = engine.run(req(uses_them_all));
      ASSERT_FALSE(next.error) << next.error->name << ": " << next.error->message;
      EXPECT_EQ(text_of(next), "ok");
      EXPECT_EQ(next.logs.stdout_lines, std::vector<std::string>{"out"});
      EXPECT_EQ(next.logs.stderr_lines, std::vector<std::string>{"err"});
    }
  }
}

TEST(EmbeddedImage, ConcurrentRunsAreIsolated) {
  const Engine engine = probe_engine();
  std::vector<std::thread> threads;
  std::mutex mu;
  std::set<std::string> drawn;
  std::atomic<int> ok{0};
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 15; ++i) {
        const std::string v = std::to_string(t * 100 + i);
        const EngineOutcome fresh = engine.run(req("get v"));
        const EngineOutcome o = engine.run(req("set v " + v + "\nget v", {{"T", v}}));
        const EngineOutcome env = engine.run(req("env T", {{"T", v}}));
        const EngineOutcome rnd = engine.run(req("random"));
        if (fresh.error && fresh.error->name == "KeyError" && text_of(o) == v &&
            text_of(env) == v) {
          ++ok;
        }
        std::lock_guard<std::mutex> lock(mu);
        drawn.insert(text_of(rnd));
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 6 * 15);
  EXPECT_EQ(drawn.size(), 6u * 15u);
}

TEST(EmbeddedImage, TheImageIsMadeOnceAndAFailedOneIsRetried) {
  EmbeddedLanguage lang = probe_language();
  auto inits = std::make_shared<std::atomic<int>>(0);
  lang.after_init = [inits](EmbeddedGuest& guest) {
    if (inits->fetch_add(1) == 0) throw std::runtime_error("first boot fails");
    guest.eval("set prelude yes");
  };
  const Engine engine = probe_engine(lang);
  EXPECT_EQ(failure_message([&] { static_cast<void>(engine.run(req("get prelude"))); }),
            "first boot fails");
  EXPECT_EQ(text_of(engine.run(req("get prelude"))), "yes");
  ManualClock clock;
  Workspace ws(clock);
  auto s = engine.sessions->boot(SessionOptions{.workspace = &ws});
  EXPECT_EQ(text_of(s->execute(req("get prelude"))), "yes");
  EXPECT_EQ(text_of(engine.run(req("get prelude"))), "yes");
  EXPECT_EQ(inits->load(), 2);
}

TEST(EmbeddedImage, SessionsReportWritesSinceBoot) {
  const Engine engine = probe_engine();
  ManualClock clock;
  Workspace ws(clock);
  auto s = engine.sessions->boot(SessionOptions{.workspace = &ws});
  ASSERT_FALSE(s->execute(req("alloc 1")).error);
  const SessionSnapshot first = s->snapshot();
  ASSERT_TRUE(first.dirty_pages.has_value());
  EXPECT_FALSE(first.dirty_pages->empty());
  ASSERT_FALSE(s->execute(req("text nothing written")).error);
  const SessionSnapshot second = s->snapshot();
  ASSERT_TRUE(second.dirty_pages.has_value());
  EXPECT_LT(second.dirty_pages->size(), first.dirty_pages->size());
}

TEST(EmbeddedImage, TheBuildIdCoversTheFingerprint) {
  EmbeddedLanguage lang = probe_language();
  lang.fingerprint = "prelude v1";
  const Engine v1 = probe_engine(lang);
  lang.fingerprint = "prelude v2";
  const Engine v2 = probe_engine(lang);
  EXPECT_EQ(v1.build.size(), 64u);
  EXPECT_NE(v1.build, v2.build);
  EXPECT_NE(v1.build, probe_module().wasm_sha256());
  EXPECT_EQ(v1.build,
            embedded::sha256_hex(std::string(probe_module().wasm_sha256()) + "\nprelude v1"));
}

TEST(EmbeddedImage, Sha256MatchesTheStandardVectors) {
  using embedded::sha256_hex;
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1'000'000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// reset_to_image() directly: when it refuses, and that an accepted reset is exact.
class ImageReset : public ::testing::Test {
 protected:
  ImageReset()
      : driver_(probe_module(), {}, {}),
        config_{.module = &probe_module(), .driver = &driver_, .fuel = kProbeFuel},
        image_(embedded::capture_image(config_, nullptr, 1'000'000'000)) {}

  // A guest in the image's state that ran `code` (its failure ignored).
  std::unique_ptr<embedded::Guest> ran(const std::string& code) {
    auto guest = std::make_unique<embedded::Guest>(config_, WasiOptions{.workspace = &ws_});
    embedded::apply_image(*image_, *guest, false);
    guest->reset_fuel();
    try {
      driver_.execute(*guest, DriverRequest{code, {}, no_env_, true});
    } catch (const std::exception&) {
    }
    return guest;
  }

  ManualClock clock_;
  Workspace ws_{clock_};
  const std::map<std::string, std::string> no_env_;
  embedded::AbiDriver driver_;
  embedded::GuestConfig config_;
  std::shared_ptr<const embedded::Image> image_;
};

TEST_F(ImageReset, RefusesInstancesWithStateTheImageDoesNotDescribe) {
  std::string flood;
  for (int i = 0; i < 40; ++i) flood += "print " + std::string(1000, 'y') + "\n";
  for (const std::string& code :
       std::vector<std::string>{"trap", "exit 1", "spin", "alloc 4", "open /dev/null", flood}) {
    SCOPED_TRACE(code.substr(0, 20));
    auto guest = ran(code);
    EXPECT_FALSE(embedded::reset_to_image(*image_, *guest));
  }
}

TEST_F(ImageReset, AnAcceptedResetRestoresTheImageExactly) {
  auto used = ran("set x 1\nzerodata\nprint hello\nopen /dev/null\ncloseall");
  ASSERT_TRUE(embedded::reset_to_image(*image_, *used));
  EXPECT_TRUE(used->wasi().logs().stdout_lines.empty());
  auto fresh = std::make_unique<embedded::Guest>(config_, WasiOptions{.workspace = &ws_});
  embedded::apply_image(*image_, *fresh, false);
  const auto a = used->instance().memory();
  const auto b = fresh->instance().memory();
  ASSERT_EQ(a.size(), b.size());
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin()));
  EXPECT_EQ(used->instance().save_globals(), fresh->instance().save_globals());
  // And it runs like a fresh copy.
  used->reset_fuel();
  const GuestReply r = driver_.execute(*used, DriverRequest{"get x", {}, no_env_, true});
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->name, "KeyError");
}

}  // namespace
}  // namespace sandbox

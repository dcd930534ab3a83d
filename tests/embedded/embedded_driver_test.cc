// A language driver through the public interface (EmbeddedDriver): a driver of its own over the
// ABI probe's exports, with an extension, the reseed flag and described traps.
#include <atomic>
#include <cstring>

#include <gtest/gtest.h>

#include "embedded/guest_abi.h"
#include "embedded/sha256.h"
#include "embedded_test_util.h"

namespace sandbox {
namespace {

using namespace testing_embedded;

// Stands for host-side handles; the driver marks it non-empty when the code asks for a "leak".
class Handles final : public GuestExtension {
 public:
  std::vector<wasm::ImportContext> import_contexts() override { return {}; }
  bool empty() const override { return live_ == 0; }
  int live_ = 0;
};

struct Calls {
  std::atomic<int> executes{0};
  std::atomic<int> reseeds{0};
  std::atomic<int> copies{0};
  std::atomic<bool> eval_refused{false};
};

class ProbeDriver final : public EmbeddedDriver {
 public:
  ProbeDriver(const wasm::Module& m, std::shared_ptr<Calls> calls)
      : initialize_(m.function<void()>("_initialize")),
        session_init_(m.function<std::uint32_t()>("session_init")),
        alloc_(m.function<std::uint32_t(std::uint32_t)>("alloc")),
        dealloc_(m.function<void(std::uint32_t)>("dealloc")),
        eval_(m.function<std::uint32_t(std::uint32_t, std::uint32_t)>("eval")),
        result_ptr_(m.function<std::uint32_t()>("result_ptr")),
        result_len_(m.function<std::uint32_t()>("result_len")),
        calls_(std::move(calls)) {}

  std::unique_ptr<GuestExtension> make_extension() const override {
    return std::make_unique<Handles>();
  }
  void boot(EmbeddedGuest& guest) const override {
    guest.call(initialize_);
    if (guest.call(session_init_) != 0) throw std::runtime_error("probe did not start");
    try {
      guest.eval("text the built-in ABI's eval");
    } catch (const std::logic_error&) {
      calls_->eval_refused = true;
    }
  }
  void after_copy(EmbeddedGuest&) const override { ++calls_->copies; }
  GuestReply execute(EmbeddedGuest& guest, const DriverRequest& request) const override {
    ++calls_->executes;
    if (request.reseed) ++calls_->reseeds;
    if (request.code == "leak") {
      static_cast<Handles*>(guest.extension())->live_ = 1;
      return GuestReply{};
    }
    const auto bytes = embedded::encode_request(request.code, request.cwd, request.env);
    const auto len = static_cast<std::uint32_t>(bytes.size());
    const std::uint32_t ptr = guest.call(alloc_, len);
    std::memcpy(guest.bytes(ptr, len).data(), bytes.data(), len);
    const std::uint32_t status = guest.call(eval_, ptr, len);
    guest.call(dealloc_, ptr);
    const std::string reply = guest.read_string(guest.call(result_ptr_), guest.call(result_len_));
    if (status > 1) throw std::runtime_error("status " + std::to_string(status));
    return parse_guest_reply(status, reply);
  }
  std::optional<std::string> describe_trap(const wasm::Trap& trap) const override {
    if (trap.kind == wasm::TrapKind::kUnreachable) return "the probe trapped";
    return std::nullopt;
  }
  std::string fingerprint() const override { return "probe driver v1"; }

 private:
  wasm::Function<void()> initialize_;
  wasm::Function<std::uint32_t()> session_init_;
  wasm::Function<std::uint32_t(std::uint32_t)> alloc_;
  wasm::Function<void(std::uint32_t)> dealloc_;
  wasm::Function<std::uint32_t(std::uint32_t, std::uint32_t)> eval_;
  wasm::Function<std::uint32_t()> result_ptr_;
  wasm::Function<std::uint32_t()> result_len_;
  std::shared_ptr<Calls> calls_;
};

class DriverEngine : public ::testing::Test {
 protected:
  DriverEngine() {
    EmbeddedLanguage lang = probe_language();
    lang.driver = std::make_shared<ProbeDriver>(probe_module(), calls_);
    engine_ = make_embedded_engine(probe_module(), std::move(lang));
  }
  std::unique_ptr<SessionInstance> boot() {
    return engine_.sessions->boot(SessionOptions{.workspace = &ws_});
  }

  std::shared_ptr<Calls> calls_ = std::make_shared<Calls>();
  ManualClock clock_;
  Workspace ws_{clock_};
  Engine engine_;
};

TEST_F(DriverEngine, RunsAndSessionsGoThroughTheDriver) {
  EXPECT_EQ(engine_.build,
            embedded::sha256_hex(std::string(probe_module().wasm_sha256()) + "\nprobe driver v1"));
  EXPECT_EQ(text_of(engine_.run(req("text hi"))), "hi");
  EXPECT_EQ(text_of(engine_.run(req("env K", {{"K", "v"}}))), "v");
  auto s = boot();
  ASSERT_FALSE(s->execute(req("set k kept")).error);
  auto r =
      engine_.sessions->restore(SessionOptions{.workspace = &ws_}, StoredSnapshot::of(*s).source());
  EXPECT_EQ(text_of(r->execute(req("get k"))), "kept");
}

TEST_F(DriverEngine, EveryCopyGetsAfterCopyAndItsFirstCallTheReseedFlag) {
  static_cast<void>(engine_.run(req("text a")));
  static_cast<void>(engine_.run(req("text b")));
  EXPECT_EQ(calls_->copies.load(), 2);
  EXPECT_EQ(calls_->reseeds.load(), 2);
  auto s = boot();
  EXPECT_EQ(calls_->copies.load(), 3);
  s->execute(req("text c"));
  s->execute(req("text d"));
  EXPECT_EQ(calls_->reseeds.load(), 3);
  auto r =
      engine_.sessions->restore(SessionOptions{.workspace = &ws_}, StoredSnapshot::of(*s).source());
  EXPECT_EQ(calls_->copies.load(), 4);
  r->execute(req("text e"));
  r->execute(req("text f"));
  EXPECT_EQ(calls_->reseeds.load(), 4);
  EXPECT_EQ(calls_->executes.load(), 6);
}

TEST_F(DriverEngine, TrapsAreDescribedByTheDriver) {
  try {
    static_cast<void>(engine_.run(req("trap")));
    FAIL() << "no exception";
  } catch (const GuestTrap& e) {
    EXPECT_STREQ(e.what(), "the probe trapped");
    EXPECT_EQ(e.trap().kind, wasm::TrapKind::kUnreachable);
  }
  auto s = boot();
  const SessionOutcome o = s->execute(req("trap"));
  ASSERT_TRUE(o.error);
  EXPECT_EQ(o.error->name, "EngineError");
  EXPECT_EQ(o.error->message, "the probe trapped");
  EXPECT_TRUE(s->invalid());
}

TEST_F(DriverEngine, HandlesLeftAfterACallFailIt) {
  EXPECT_THROW(static_cast<void>(engine_.run(req("leak"))), std::logic_error);
  EXPECT_EQ(text_of(engine_.run(req("text still fine"))), "still fine");
  auto s = boot();
  const SessionOutcome o = s->execute(req("leak"));
  ASSERT_TRUE(o.error);
  EXPECT_EQ(o.error->name, "EngineError");
  EXPECT_TRUE(s->invalid());
  EXPECT_FALSE(s->can_snapshot());
}

TEST(DriverEngineConfig, AfterInitAndFingerprintBelongToTheBuiltInAbi) {
  EmbeddedLanguage lang = probe_language();
  lang.driver = std::make_shared<ProbeDriver>(probe_module(), std::make_shared<Calls>());
  lang.fingerprint = "x";
  EXPECT_THROW(make_embedded_engine(probe_module(), lang), std::invalid_argument);
  lang.fingerprint.clear();
  lang.after_init = [](EmbeddedGuest&) {};
  EXPECT_THROW(make_embedded_engine(probe_module(), lang), std::invalid_argument);
}

TEST_F(DriverEngine, EvalIsOnlyForTheBuiltInAbi) {
  EXPECT_FALSE(engine_.run(req("text x")).error);
  EXPECT_TRUE(calls_->eval_refused.load());
  EmbeddedLanguage lang = probe_language();
  auto seen = std::make_shared<std::string>();
  lang.after_init = [seen](EmbeddedGuest& guest) {
    *seen = guest.eval("text from eval").results.at(0).text.value();
  };
  EXPECT_FALSE(make_embedded_engine(probe_module(), lang).run(req("text x")).error);
  EXPECT_EQ(*seen, "from eval");
}

}  // namespace
}  // namespace sandbox

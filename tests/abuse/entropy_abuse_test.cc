// Clock and randomness abuse: random bytes in a context after a snapshot and after a restart
// (defect 6: a context restored from a snapshot must still get fresh random bytes, never a
// replayed stream), random streams that differ between sandboxes and between stateless runs
// (which all start from one post-initialisation image), loops on the clock, and sleeping.
#include <map>
#include <regex>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "abuse/abuse_fixture.h"

namespace sandbox::test {
namespace {

using EntropyAbuse = AbuseTest;

// 16 bytes from the operating system's CSPRNG (through WASI random_get), as 32 hex digits.
const std::map<std::string, std::string> kRandomBytes = {
    {"python", "import os\nprint(os.urandom(16).hex())"},
    {"ruby", "require 'securerandom'\nputs SecureRandom.hex(16)"},
};

// The language's ordinary pseudo-random generator, unseeded by the program.
const std::map<std::string, std::string> kPseudoRandom = {
    {"python", "import random\nprint(random.random(), random.random())"},
    {"javascript", "console.log(Math.random(), Math.random())"},
    {"lua", "print(math.random(), math.random())"},
    {"ruby", "puts rand, rand"},
    {"perl", "print rand(), ' ', rand(), \"\\n\"; undef"},
};

std::string printed(const Reply& r) {
  EXPECT_EQ(r.status, 200) << r.describe();
  EXPECT_FALSE(r.has_error()) << r.describe();
  return r.stdout_text();
}

TEST_P(EntropyAbuse, RandomBytesStayFreshAcrossSnapshotsAndRestarts) {
  const auto it = kRandomBytes.find(language());
  if (it == kRandomBytes.end()) GTEST_SKIP() << language() << " has no CSPRNG interface";
  const std::string code = it->second;
  std::set<std::string> seen;
  const auto draw = [&](const Reply& r) {
    const std::string hex = printed(r);
    EXPECT_TRUE(std::regex_match(hex, std::regex("[0-9a-f]{32}\n"))) << r.describe();
    EXPECT_TRUE(seen.insert(hex).second) << "random bytes repeated: " << hex;
  };
  // Each execution ends in a snapshot; the next one continues from it.
  for (int i = 0; i < 3; ++i) draw(api_->execute("entropy-a", binding(), code));
  for (int i = 0; i < 2; ++i) draw(api_->execute("entropy-b", binding(), code));
  draw(api_->run(language(), code));
  draw(api_->run(language(), code));
  // A restart restores both contexts from their snapshots.
  ASSERT_EQ(server_->stop(), 0) << server_->log();
  server_->start();
  ASSERT_TRUE(server_->started()) << server_->log();
  api_ = std::make_unique<SandboxdApi>(server_->url(), std::chrono::seconds(90));
  for (int i = 0; i < 2; ++i) draw(api_->execute("entropy-a", binding(), code));
  draw(api_->execute("entropy-b", binding(), code));
}

TEST_P(EntropyAbuse, PseudoRandomStreamsDifferBetweenRunsAndSandboxes) {
  const std::string code = program(kPseudoRandom);
  std::set<std::string> seen;
  for (int i = 0; i < 3; ++i) {
    const std::string out = printed(api_->run(language(), code));
    EXPECT_TRUE(seen.insert(out).second) << "stateless runs repeat the same stream: " << out;
  }
  for (const std::string sandbox : {"prng-a", "prng-b", "prng-c"}) {
    const std::string out = printed(api_->execute(sandbox, binding(), code));
    EXPECT_TRUE(seen.insert(out).second) << "new contexts repeat the same stream: " << out;
  }
}

// Loops on the clock end in the fuel limit; sleeping ends quickly (an error or a short return).
const std::map<std::string, std::string> kClockLoop = {
    {"python", "import time\nt0 = time.time()\nwhile time.time() - t0 < 3600:\n    pass"},
    {"javascript", "const t0 = Date.now(); while (Date.now() - t0 < 3600000) {}"},
    {"lua", "local t0 = os.clock() while os.clock() - t0 < 3600 do end"},
    {"ruby",
     "t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)\nwhile "
     "Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0 < 3600; end"},
    {"perl", "my $t0 = time; 1 while time - $t0 < 3600"},
};

const std::map<std::string, std::string> kSleep = {
    {"python", "import time\ntime.sleep(3600)"},
    {"ruby", "sleep 3600"},
    {"perl", "sleep 3600; 'slept'"},
};

TEST_P(EntropyAbuse, ClockLoopsAndSleepsAreBounded) {
  const Reply loop = api_->run(language(), program(kClockLoop));
  expect_guest_error(loop);
  EXPECT_EQ(loop.error_name(), "ExecutionLimitError") << loop.describe();
  EXPECT_LT(loop.ms, 60'000) << loop.describe();
  const auto sleep = kSleep.find(language());
  if (sleep == kSleep.end()) return;
  // The bound tells an hour's sleep from the boot of a context on a loaded machine (a Ruby
  // context's first execute took 20.8 s under four concurrent builds, over a bound of 20 s).
  SandboxdApi impatient(server_->url(), std::chrono::seconds(120));
  for (const bool in_context : {false, true}) {
    SCOPED_TRACE(in_context ? "context" : "stateless");
    const Reply r = in_context ? impatient.execute("sleeper", binding(), sleep->second)
                               : impatient.run(language(), sleep->second);
    EXPECT_EQ(r.status, 200) << r.describe();
    EXPECT_LT(r.ms, 60'000) << "a guest sleep holds a server thread: " << r.describe();
  }
}

TEST_P(EntropyAbuse, TheWallClockIsTheHostsTime) {
  const std::map<std::string, std::string> now = {
      {"python", "import time\nprint(int(time.time()))"},
      {"javascript", "console.log(Math.floor(Date.now() / 1000))"},
      {"lua", "print(os.time())"},
      {"ruby", "puts Time.now.to_i"},
      {"perl", "print time, \"\\n\"; undef"},
  };
  const Reply r = api_->execute("clock", binding(), now.at(language()));
  const long guest = std::atol(printed(r).c_str());
  const long host = static_cast<long>(std::time(nullptr));
  EXPECT_LT(std::labs(guest - host), 120) << r.describe();
}

INSTANTIATE_TEST_SUITE_P(Languages, EntropyAbuse, ::testing::ValuesIn(abuse_languages()),
                         language_name);

}  // namespace
}  // namespace sandbox::test

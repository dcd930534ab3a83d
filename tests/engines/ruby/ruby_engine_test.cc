// What is particular to the Ruby engine: its identity and version, snapshot/restore, random
// numbers, and Ruby 3.2+ features across a restart of the runtime. The conformance suite, the
// program corpus (corpus.json) and the checks of checks.json run in tests/engines/suite, as for
// every engine.
#include "ruby_engine.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <sandbox/runtime.h>

#include "engines/corpus/image_engine_checks.h"
#include "engines/corpus/session_snapshot.h"
#include "support/isolation_under_test.h"

namespace sandbox {
namespace {

const Engine& ruby() {
  static const Engine engine = test::under_test(engines::make_ruby_engine());
  return engine;
}

std::string run_text(const std::string& code) { return testing_corpus::run_text(ruby(), code); }

TEST(RubyEngine, Identity) {
  EXPECT_EQ(ruby().language, "ruby");
  EXPECT_EQ(ruby().engine_name, "CRuby 4.0.0 / ruby.wasm 2.10.1");
  EXPECT_EQ(ruby().build.size(), 64u);  // sha256 of the module and the driver
  EXPECT_EQ(ruby().limits.fuel, engines::kRubyFuel);
  EXPECT_EQ(ruby().limits.memory_bytes, 128u << 20);
  EXPECT_TRUE(ruby().sessions.has_value());
}

TEST(RubyEngine, VersionMatchesTheEngineName) { EXPECT_EQ(run_text("RUBY_VERSION"), "\"4.0.0\""); }

// What Ruby 4.0 changed that a program sees: Set is a core class with a new inspect, Array#rfind
// is new, and RubyGems is loaded at start (the driver completes ruby.wasm's start-up), so the
// bundled gems load as natively.
TEST(RubyEngine, Ruby40Semantics) {
  EXPECT_EQ(run_text("Set[3, 1, 2].inspect"), "\"Set[3, 1, 2]\"");
  EXPECT_EQ(run_text("[1, 2, 3, 4].rfind(&:odd?)"), "3");
  EXPECT_EQ(run_text("require 'csv'; CSV.parse_line('a,b,c').size"), "3");
  EXPECT_EQ(run_text("require 'base64'; Base64.strict_encode64('hi')"), "\"aGk=\"");
}

TEST(RubyEngine, StateSurvivesSnapshotAndRestore) {
  testing_corpus::SnapshotFixture f(ruby());
  f.expect_text(*f.session, "counter = 41; def bump = $bumped = true; class Box; end; nil", "");
  auto restored = f.restore();
  f.expect_text(*restored, "counter + 1", "42");
  f.expect_text(*restored, "counter += 1; bump; Box.name", "\"Box\"");
  auto again = f.restore_from(*restored);
  const SessionOutcome o = again->execute({"[counter, $bumped]", {}});
  ASSERT_EQ(o.results.size(), 1u);
  EXPECT_EQ(boost::json::serialize(*o.results[0].json), "[42,true]");
}

// A guard against the Perl engine's defect (copies first used within one millisecond drew the
// same numbers): Random.srand mixes the WASI clock with OS entropy, which Ruby draws through
// random_get, so copies used back to back must still differ.
TEST(RubyEngine, RestoredCopiesUsedWithinOneMillisecondDrawDifferentRandomNumbers) {
  testing_corpus::SnapshotFixture f(ruby());
  f.expect_text(*f.session, "$x = 1", "1");
  constexpr int kCopies = 24;
  std::vector<std::unique_ptr<SessionInstance>> copies;
  for (int i = 0; i < kCopies; ++i) copies.push_back(f.restore());
  std::set<std::string> drawn;
  for (auto& copy : copies) drawn.insert(f.text(*copy, "rand(1 << 40)"));
  EXPECT_EQ(drawn.size(), static_cast<std::size_t>(kCopies));
}

TEST(RubyEngine, StatelessRunsDrawDifferentRandomNumbers) {
  EXPECT_NE(run_text("rand(1 << 60)"), run_text("rand(1 << 60)"));
}

// Ruby 3.2's Data#with and Ruby 3.4's `it` (neither is in Debian's Ruby 3.1) in a context that
// is stored, then restored by a new runtime over the same database.
TEST(RubyEngine, ItAndDataWithSurviveARestartOfTheRuntime) {
  testing_corpus::expect_a_context_survives_a_restart_of_the_runtime(
      engines::make_ruby_engine,
      "Point = Data.define(:x, :y)\norigin = Point.new(x: 0, y: 0)\nmoved = origin.with(y: 2)\n"
      "doubled = [1, 2, 3].map { it * 2 }\ndef squares(list) = list.map { it * it }",
      "[moved.to_h, origin.y, moved.frozen?, doubled, squares([4, 5]),\n"
      " moved.with(x: 3).inspect]",
      R"([{"x":0,"y":2},0,true,[2,4,6],[16,25],"#<data Point x=3, y=2>"])");
}

}  // namespace
}  // namespace sandbox

// JavaScript as node users know it (issues 15 and 25, docs/languages.md#javascript): top-level
// await, number formatting, the QuickJS 2021-03-27 defects the engine once patched (QuickJS-ng
// fixes them; the tests stay as regression tests) and QuickJS-ng's newer built-ins. The
// differential corpus (tests/differential/javascript/) compares many more programs with node.
#include <string>

#include <gtest/gtest.h>

#include "engines/corpus/session_snapshot.h"
#include "javascript_engine.h"
#include "support/isolation_under_test.h"

namespace sandbox {
namespace {

const Engine& javascript() {
  static const Engine engine = test::under_test(engines::make_javascript_engine());
  return engine;
}

// The single text result of a stateless run; "" and a test failure on an error.
std::string run_text(const std::string& code) {
  const EngineOutcome o = javascript().run({code, {}});
  EXPECT_FALSE(o.error) << code << ": " << o.error->name << ": " << o.error->message;
  if (o.error || o.results.empty()) return "";
  return o.results[0].text.value_or("<json>");
}

ExecutionError run_error(const std::string& code) {
  const EngineOutcome o = javascript().run({code, {}});
  EXPECT_TRUE(o.error) << code;
  return o.error.value_or(ExecutionError{});
}

TEST(JavaScriptTopLevelAwait, StatelessCodeAwaitsAndReturnsItsLastExpression) {
  EXPECT_EQ(run_text("const x = await Promise.resolve(41); x + 1"), "42");
  EXPECT_EQ(run_text("await null; 'done'"), "'done'");
  EXPECT_EQ(run_text("let s = 0; for await (const v of [1, 2, 3]) s += v; s"), "6");
  // TypeScript with a top-level await: types stripped first, then the rewrite.
  EXPECT_EQ(run_text("const typed: number = await Promise.resolve(2); typed * 21"), "42");
}

TEST(JavaScriptTopLevelAwait, DeclarationsPersistInAContext) {
  testing_corpus::SnapshotFixture f(javascript());
  f.expect_text(*f.session,
                "const {a, b: [c]} = await Promise.resolve({a: 1, b: [2]});\n"
                "let n = await 40; var v = 'v'; function add(x) { return x + n; }\n"
                "class Box { constructor(x) { this.x = x; } }\n"
                "if (true) { var nested = await 'nested'; }\n"
                "add(a + c)",
                "43");
  f.expect_text(*f.session, "[a, c, n, v, add(2), new Box(5).x, nested].join(' ')",
                "'1 2 40 v 42 5 nested'");
  // The next execute with top-level await sees and changes them too; `await (x)` compiles as a
  // call in a script, and is an await all the same.
  f.expect_text(*f.session, "n = await (n + 1); add(0)", "41");
  f.expect_text(*f.session, "await [n][0]", "41");
  // ... and so does a restored copy.
  auto restored = f.restore();
  f.expect_text(*restored, "add(1)", "42");
}

TEST(JavaScriptTopLevelAwait, APromiseThatNeverSettlesIsAnError) {
  const ExecutionError e = run_error("await new Promise(() => {}); 1");
  EXPECT_NE(e.message.find("never settled"), std::string::npos) << e.message;
}

TEST(JavaScriptTopLevelAwait, ErrorsAfterAnAwaitKeepTheirNameAndLine) {
  const EngineOutcome o = javascript().run({"await null;\nthrow new TypeError('late')", {}});
  ASSERT_TRUE(o.error);
  EXPECT_EQ(o.error->name, "TypeError");
  EXPECT_EQ(o.error->message, "late");
}

TEST(JavaScriptTopLevelAwait, CodeWithoutTopLevelAwaitIsNotRewritten) {
  // `await` is an identifier in a sloppy script; a rewrite would make it an operator.
  EXPECT_EQ(run_text("var await = 5; await"), "5");
  EXPECT_EQ(run_text("function await(x) { return x * 2; } await (21)"), "42");
  testing_corpus::SnapshotFixture f(javascript());
  f.expect_text(*f.session, "function await(x) { return x * 2; }", "");
  f.expect_text(*f.session, "await (21)", "42");  // a global named await: a call, as today
  f.expect_text(*f.session, "let kept = 1", "");
  const SessionOutcome again = f.session->execute({"let kept = 2", {}});
  ASSERT_TRUE(again.error);  // re-declaring a let stays an error, as in a console
  EXPECT_EQ(again.error->name, "SyntaxError");
}

TEST(JavaScriptTopLevelAwait, TopLevelReturnStaysASyntaxError) {
  EXPECT_EQ(run_error("await null; return 1").name, "SyntaxError");
}

// Hostile input: the rewrite's parser recurses, QuickJS's stops at the first error. The run ends
// quickly with the original SyntaxError, not a crash or a limit.
TEST(JavaScriptTopLevelAwait, DeeplyNestedCodeIsAPlainSyntaxError) {
  const std::string code = "await 1;\n" + std::string(60000, '[');
  EXPECT_EQ(run_error(code).name, "SyntaxError");
  const std::string parens =
      "await (" + std::string(30000, '(') + "1" + std::string(30000, ')') + ")";
  const EngineOutcome o = javascript().run({parens, {}});
  ASSERT_TRUE(o.error);  // QuickJS's own stack limit or the rewrite's parse failure
}

// QuickJS 2021-03-27 read the token after a nested function's body with that function's keywords
// (a patch then; QuickJS-ng reparses the token in the enclosing function).
TEST(JavaScriptParser, AwaitRightAfterANestedFunctionDeclaration) {
  EXPECT_EQ(run_text("async function main() { function helper() { return 1; }\n"
                     "await null; return helper(); }\nmain()"),
            "1");
  EXPECT_EQ(run_text("function* g() { function h() {}\nyield 7; }\ng().next().value"), "7");
}

// ECMAScript: "if there are two such n, pick the larger n"; QuickJS 2021-03-27's printf rounded
// ties to even (the engine patched that then; QuickJS-ng's dtoa.c rounds exactly).
TEST(JavaScriptNumbers, FixedDigitFormattingRoundsTiesAwayFromZero) {
  EXPECT_EQ(run_text("[(25).toExponential(0), (2.5).toFixed(0), (-2.5).toFixed(0), "
                     "(1.25).toPrecision(2), (0.125).toFixed(2), (1234.5).toPrecision(4), "
                     "(-0.5).toFixed(0), (0.5).toExponential(0), (99.5).toFixed(0)].join(' ')"),
            "'3e+1 3 -3 1.3 0.13 1235 -1 5e-1 100'");
  // Not ties: the exact value of the double decides (1.005 is 1.00499999999999989..., 8.345 is
  // 8.34500000000000063...).
  EXPECT_EQ(run_text("[(1.005).toFixed(2), (1.45).toFixed(1), (8.345).toFixed(2)].join(' ')"),
            "'1.00 1.4 8.35'");
  EXPECT_EQ(run_text("(5e-324).toFixed(100).length"), "102");
  EXPECT_EQ(run_text("(2 ** -1074).toExponential(100).slice(-12)"), "'3599238e-324'");
}

TEST(JavaScriptNumbers, ToStringWithARadixWritesFractionDigitsInThatRadix) {
  EXPECT_EQ(run_text("[(0.5).toString(2), (255.5).toString(16), (1e21).toString(16), "
                     "(-0.1).toString(3).slice(0, 8), (2 ** 60).toString(2).length].join(' ')"),
            "'0.1 ff.8 3635c9adc5dea00000 -0.00220 61'");
}

TEST(JavaScriptNumbers, LargeDecimalIntegersParseToTheNearestDouble) {
  EXPECT_EQ(run_text("String(123456789012345680000)"), "'123456789012345680000'");
  EXPECT_EQ(run_text("Number('123456789012345680000') === 123456789012345683968"), "true");
}

TEST(JavaScriptConsole, NumbersPrintAsNodePrintsThem) {
  const EngineOutcome o = javascript().run({"console.log(NaN, Infinity, -Infinity, -0, 1.5)", {}});
  ASSERT_FALSE(o.error);
  ASSERT_EQ(o.logs.stdout_lines.size(), 1u);
  EXPECT_EQ(o.logs.stdout_lines[0], "NaN Infinity -Infinity -0 1.5");
}

TEST(JavaScriptBuiltins, Es2022MethodsNode20HasExist) {
  EXPECT_EQ(run_text("[[1, 2, 3].at(-1), 'abc'.at(-1), new Uint8Array([4, 5]).at(0), "
                     "Object.hasOwn({x: 1}, 'x'), [1, 2, 3].findLast((x) => x < 3), "
                     "[1, 2, 3].findLastIndex((x) => x > 5), [].at(0)].join(' ')"),
            "'3 c 4 true 2 -1 '");
  EXPECT_EQ(run_text("[Array.prototype.at.length, Array.prototype.findLast.length, "
                     "Object.keys(Array.prototype).length].join(' ')"),
            "'1 1 0'");
}

// ES2023-ES2025 built-ins QuickJS-ng has (node 20 lacks most of them:
// tests/differential/javascript/collections_es2024_and_later.js).
TEST(JavaScriptBuiltins, GroupByCopyingMethodsSetMethodsAndWithResolvers) {
  EXPECT_EQ(run_text("JSON.stringify(Object.groupBy([1, 2, 3, 4], (x) => (x % 2 ? 'odd' : "
                     "'even')))"),
            "'{\"odd\":[1,3],\"even\":[2,4]}'");
  EXPECT_EQ(run_text("Map.groupBy(['a', 'bb', 'cc'], (s) => s.length).get(2).join()"), "'bb,cc'");
  EXPECT_EQ(run_text("const a = [3, 1, 2]; [a.toSorted(), a.toReversed(), a.with(0, 9), "
                     "a.toSpliced(1, 1), a].map(String).join(' ')"),
            "'1,2,3 2,1,3 9,1,2 3,2 3,1,2'");
  EXPECT_EQ(run_text("const s = new Set([1, 2, 3]), t = new Set([2, 3, 4]);\n"
                     "[[...s.union(t)], [...s.intersection(t)], [...s.symmetricDifference(t)], "
                     "s.isDisjointFrom(new Set([9]))].join(' ')"),
            "'1,2,3,4 2,3 1,4 true'");
  EXPECT_EQ(
      run_text("const { promise, resolve } = Promise.withResolvers(); resolve(42); await promise"),
      "42");
}

TEST(JavaScriptBuiltins, IteratorHelpersAndArrayFromAsync) {
  EXPECT_EQ(run_text("function* naturals() { for (let i = 1; ; i++) yield i; }\n"
                     "naturals().filter((x) => x % 3 === 0).map((x) => x * x).drop(1).take(3)"
                     ".toArray().join()"),
            "'36,81,144'");
  EXPECT_EQ(
      run_text("Iterator.from({ next() { return { done: this.n > 3, value: this.n++ }; }, n: 1 })"
               ".reduce((a, b) => a + b, 0)"),
      "6");
  EXPECT_EQ(run_text("(await Array.fromAsync([1, Promise.resolve(2), 3], (x) => x * 2)).join()"),
            "'2,4,6'");
}

// The new built-ins are part of the interpreter's image: a context restored from a snapshot has
// them, and values made with them survive the restore.
TEST(JavaScriptBuiltins, NewBuiltinsWorkInARestoredContext) {
  testing_corpus::SnapshotFixture f(javascript());
  f.expect_text(
      *f.session,
      "var groups = Object.groupBy(['ant', 'bee', 'cat', 'cow'], (w) => w[0]);\n"
      "var seen = new Set(['ant']); var odd = [1, 2, 3, 4, 5].values().filter((x) => x % 2)",
      "");
  auto restored = f.restore();
  f.expect_text(*restored,
                "[groups.c.join(), [...seen.union(new Set(['bee']))].join(), odd.toArray().join()]"
                ".join(' ')",
                "'cat,cow ant,bee 1,3,5'");
}

}  // namespace
}  // namespace sandbox

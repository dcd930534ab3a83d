// The CLI's error forms (tools/sandbox/error_format.h) on the engines' real error answers: each
// answer below is what POST /execute returned for the code it echoes (usage and duration left
// out), and the expected text is the language's own interpreter's form.
#include "error_format.h"

#include <string>

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <sandbox/protocol.h>

namespace sandbox::cli {
namespace {

// The answer decoded as the client decodes it, then formatted by the language it names.
std::string shown(const std::string& answer) {
  const ExecutionResult r = execution_result_from_json(boost::json::parse(answer).as_object());
  EXPECT_TRUE(r.outcome.error.has_value()) << answer;
  return r.outcome.error ? format_guest_error(r.language, *r.outcome.error) : "";
}

TEST(ErrorFormat, PythonShowsATraceback) {
  EXPECT_EQ(
      shown(
          R"j({"code":"def f():\n    raise ValueError(\"bad value\")\nf()\n","language":"python","engine":"CPython 3.11.2 / sandbox-workers","logs":{"stdout":[],"stderr":[]},"results":[],"error":{"name":"ValueError","message":"bad value","traceback":["ValueError: bad value","  File \"<input>\", line 3, in <module>","  File \"<input>\", line 2, in f"]}})j"),
      "Traceback (most recent call last):\n"
      "  File \"<input>\", line 3, in <module>\n"
      "  File \"<input>\", line 2, in f\n"
      "ValueError: bad value\n");
}

TEST(ErrorFormat, PythonShowsAnEmptyMessageAsTheNameAlone) {
  EXPECT_EQ(
      shown(
          R"j({"code":"raise KeyboardInterrupt\n","language":"python","engine":"CPython 3.11.2 / sandbox-workers","logs":{"stdout":[],"stderr":[]},"results":[],"error":{"name":"KeyboardInterrupt","message":"","traceback":["KeyboardInterrupt: ","  File \"<input>\", line 1, in <module>"]}})j"),
      "Traceback (most recent call last):\n"
      "  File \"<input>\", line 1, in <module>\n"
      "KeyboardInterrupt\n");
}

// CPython prints a SyntaxError without the "Traceback" header, and its msg without str()'s
// " (<input>, line 1)".
TEST(ErrorFormat, PythonShowsASyntaxErrorWithItsCaret) {
  EXPECT_EQ(
      shown(
          R"j({"code":"x = (\n","language":"python","engine":"CPython 3.11.2 / sandbox-workers","logs":{"stdout":[],"stderr":[]},"results":[],"error":{"name":"SyntaxError","message":"'(' was never closed (<input>, line 1)","traceback":["SyntaxError: '(' was never closed (<input>, line 1)","  File \"<input>\", line 1","    x = (","        ^"]}})j"),
      "  File \"<input>\", line 1\n"
      "    x = (\n"
      "        ^\n"
      "SyntaxError: '(' was never closed\n");
}

TEST(ErrorFormat, RubyShowsTheFrameMessageAndClassThenTheOuterFrames) {
  EXPECT_EQ(
      shown(
          R"j({"code":"def f\n  raise ArgumentError, \"bad\"\nend\nf\n","language":"ruby","engine":"CRuby 4.0.0 / ruby.wasm 2.10.1","logs":{"stdout":[],"stderr":[]},"results":[],"error":{"name":"ArgumentError","message":"bad","traceback":["(sandbox):2:in 'Object#f'","(sandbox):4:in '<main>'"],"lineNumber":2}})j"),
      "(sandbox):2:in 'Object#f': bad (ArgumentError)\n"
      "\tfrom (sandbox):4:in '<main>'\n");
}

TEST(ErrorFormat, RubyShowsAnEmptyMessageAsUnhandledException) {
  EXPECT_EQ(
      shown(
          R"j({"code":"raise \"\"\n","language":"ruby","engine":"CRuby 4.0.0 / ruby.wasm 2.10.1","logs":{"stdout":[],"stderr":[]},"results":[],"error":{"name":"RuntimeError","message":"","traceback":["(sandbox):1:in '<main>'"],"lineNumber":1}})j"),
      "(sandbox):1:in '<main>': unhandled exception (RuntimeError)\n");
}

TEST(ErrorFormat, RubyPutsTheClassAfterTheFirstLineOfAMultiLineMessage) {
  EXPECT_EQ(
      shown(
          R"j({"code":"puts(1 +)\n","language":"ruby","engine":"CRuby 4.0.0 / ruby.wasm 2.10.1","logs":{"stdout":[],"stderr":[]},"results":[],"error":{"name":"SyntaxError","message":"(sandbox):1: syntax error found\n> 1 | puts(1 +)\n    |         ^ unexpected ')'; expected an expression after the operator\n","traceback":[],"lineNumber":1}})j"),
      "(sandbox):1: syntax error found (SyntaxError)\n"
      "> 1 | puts(1 +)\n"
      "    |         ^ unexpected ')'; expected an expression after the operator\n");
}

TEST(ErrorFormat, PerlShowsDiesMessageAsItIs) {
  EXPECT_EQ(
      shown(
          R"j({"code":"print \"x\\n\";\ndie \"broken\";\n","language":"perl","engine":"Perl 5.42.0 / zeroperl 1.0.10","logs":{"stdout":["x"],"stderr":[]},"results":[],"error":{"name":"PerlError","message":"broken at (sandbox) line 2.","traceback":[],"lineNumber":2}})j"),
      "broken at (sandbox) line 2.\n");
  EXPECT_EQ(
      shown(
          R"j({"code":"use Carp;\nsub check { croak 'bad value' }\ncheck(7);\n","language":"perl","engine":"Perl 5.42.0 / zeroperl 1.0.10","logs":{"stdout":[],"stderr":[]},"results":[],"error":{"name":"PerlError","message":"bad value at (sandbox) line 2.\n\tmain::check(7) called at (sandbox) line 3","traceback":[],"lineNumber":3}})j"),
      "bad value at (sandbox) line 2.\n\tmain::check(7) called at (sandbox) line 3\n");
}

TEST(ErrorFormat, JavaScriptShowsNameMessageAndAtFrames) {
  EXPECT_EQ(
      shown(
          R"j({"code":"function f() { throw new TypeError(\"bad\"); }\nf();\n","language":"javascript","engine":"QuickJS-ng 0.17.0 / sandbox-workers","logs":{"stdout":[],"stderr":[]},"results":[],"error":{"name":"TypeError","message":"bad","traceback":["    at f (input:1:26)","    at <eval> (input:2:1)"]}})j"),
      "TypeError: bad\n"
      "    at f (input:1:26)\n"
      "    at <eval> (input:2:1)\n");
  EXPECT_EQ(
      shown(
          R"j({"code":"throw 1\n","language":"javascript","engine":"QuickJS-ng 0.17.0 / sandbox-workers","logs":{"stdout":[],"stderr":[]},"results":[],"error":{"name":"Error","message":"1","traceback":[]}})j"),
      "Error: 1\n");
}

TEST(ErrorFormat, LuaShowsTheMessageAndAStackTraceback) {
  EXPECT_EQ(
      shown(
          R"j({"code":"local function f() error(\"bad\") end\nf()\n","language":"lua","engine":"Lua 5.4.9 / sandbox-workers","logs":{"stdout":[],"stderr":[]},"results":[],"error":{"name":"LuaError","message":"input:1: bad","traceback":["LuaError: input:1: bad","  [C]: in function 'error'","  input:1: in local 'f'","  input:2: in main chunk"]}})j"),
      "lua: input:1: bad\n"
      "stack traceback:\n"
      "\t[C]: in function 'error'\n"
      "\tinput:1: in local 'f'\n"
      "\tinput:2: in main chunk\n");
  EXPECT_EQ(
      shown(
          R"j({"code":"error({code = 1})\n","language":"lua","engine":"Lua 5.4.9 / sandbox-workers","logs":{"stdout":[],"stderr":[]},"results":[],"error":{"name":"LuaError","message":"(error object is a table value)","traceback":["LuaError: (error object is a table value)","  [C]: in function 'error'","  input:1: in main chunk"]}})j"),
      "lua: (error object is a table value)\n"
      "stack traceback:\n"
      "\t[C]: in function 'error'\n"
      "\tinput:1: in main chunk\n");
}

TEST(ErrorFormat, LuaWithoutATracebackShowsTheMessageAlone) {
  EXPECT_EQ(format_lua_error({.name = "LuaError", .message = "input:1: boom", .traceback = {}}),
            "lua: input:1: boom\n");
}

// Languages without a form of their own (calc, kv, a runtime's language) keep the generic one.
TEST(ErrorFormat, OtherLanguagesShowNameMessageAndTheTracebackIndented) {
  EXPECT_EQ(format_guest_error("kv", {.name = "KvError", .message = "boom", .traceback = {"x"}}),
            "KvError: boom\n  x\n");
  EXPECT_EQ(format_guest_error("Python3", {.name = "E", .message = "m", .traceback = {}}),
            "E: m\n");
}

}  // namespace
}  // namespace sandbox::cli

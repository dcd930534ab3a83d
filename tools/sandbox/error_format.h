// A guest's error as its language's own interpreter prints it
// (docs/languages.md#errors-in-the-cli), built from the fields the wire carries (name, message,
// traceback, lineNumber); the wire does not change. `sandbox run` and `sandbox repl` print errors
// through format_guest_error.
#pragma once

#include <string>
#include <string_view>

#include <sandbox/engine.h>

namespace sandbox::cli {

// "Traceback (most recent call last):", the frames, then "Name: message" (a SyntaxError: the
// offending line and caret, then "SyntaxError: message", as CPython prints it).
std::string format_python_error(const ExecutionError& error);

// "(sandbox):3:in 'm': message (Name)" then "\tfrom ..." for the outer frames.
std::string format_ruby_error(const ExecutionError& error);

// die's message as it is ("message at (sandbox) line 3.").
std::string format_perl_error(const ExecutionError& error);

// "Name: message" then the "    at ..." frames.
std::string format_javascript_error(const ExecutionError& error);

// "lua: message", then "stack traceback:" and the frames when the wire carries them.
std::string format_lua_error(const ExecutionError& error);

// By the language the answer names (python, ruby, perl, javascript/typescript, lua); any other
// language (calc, kv, a runtime's own): "Name: message" and the traceback lines indented.
// Every line ends in "\n".
std::string format_guest_error(std::string_view language, const ExecutionError& error);

}  // namespace sandbox::cli

// The Lua engine: Lua 5.4.9 (Debian lua5.4 5.4.9-1, Debian's patches applied) compiled to a
// metered wasm32-wasi reactor (driver.c) and served by the embedded-interpreter host
// (<sandbox/embedded.h>), with stateless runs and sessions (code contexts).
//
// Language semantics (driver.c has the details): the code is tried as `return <code>` first,
// like the standalone REPL; the returned value is the result: nil -> none, a table that
// serializes -> json (sequences -> arrays, string keys -> objects), a string -> text as a
// double-quoted Lua literal, other values -> tostring; several values -> one tab-separated
// text. Errors are named LuaError, SyntaxError or MemoryError, with luaL_traceback frames.
// Globals persist in a session, `local`s do not. os.getenv sees the request's variables;
// io.open reaches /workspace. There is no /stdlib content.
//
// Limits: kLuaFuel per run or session execute (a run also pays for the interpreter's start-up),
// kLuaMemoryBytes of linear memory, kLuaMaxStackSlots of Lua stack, 30 s per guest call.
// Thread-safety: the Engine's run() may be called from any thread; the module is shared.
#pragma once

#include <cstdint>

#include <sandbox/engine.h>
#include <sandbox/engine_limits.h>

#include "lua_stack_limit.h"

namespace sandbox::engines {

inline constexpr std::uint64_t kLuaFuel = 50'000'000;
inline constexpr std::uint64_t kLuaMemoryBytes = kWasmEngineMemoryBytes;
// Lua's stack limit in slots (LUAI_MAXSTACK of the guest build): unbounded recursion ends in
// Lua's "stack overflow" error, well before kLuaMemoryBytes (lua_stack_limit.h explains the size).
inline constexpr int kLuaMaxStackSlots = SANDBOX_LUA_MAX_STACK_SLOTS;

Engine make_lua_engine();

}  // namespace sandbox::engines

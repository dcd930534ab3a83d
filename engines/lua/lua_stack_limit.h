/* The Lua stack's limit in slots (Lua's LUAI_MAXSTACK), shared by the guest build
 * (lua_wasi_user.h) and the host (lua_engine.h: kLuaMaxStackSlots).
 *
 * Native Lua allows 1,000,000 slots. In wasm32 a Lua call costs a CallInfo (36 bytes) plus at
 * least one 16-byte slot, and growing the stack copies it: a million frames need more than the
 * engine's 64 MiB memory cap, so unbounded recursion ended in "not enough memory". 200,000 slots
 * (about 200,000 frames of a small function, some 12 MiB) end it in Lua's own "stack overflow"
 * with plenty of memory left, and still allow deep recursion. */
#ifndef SANDBOX_LUA_STACK_LIMIT_H_
#define SANDBOX_LUA_STACK_LIMIT_H_

#define SANDBOX_LUA_MAX_STACK_SLOTS 200000

#endif

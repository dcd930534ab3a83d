/* Lua's "generic extra include file" (LUA_USER_H, set by lua_wasi_conf.h): lua.h includes it
 * after luaconf.h, so the settings here replace luaconf.h's for every Lua source. */
#ifndef SANDBOX_LUA_WASI_USER_H_
#define SANDBOX_LUA_WASI_USER_H_

#include "lua_stack_limit.h"

/* Unbounded recursion must reach Lua's stack limit before the memory cap (lua_stack_limit.h). */
#undef LUAI_MAXSTACK
#define LUAI_MAXSTACK SANDBOX_LUA_MAX_STACK_SLOTS

#endif

/* Lua's "generic extra include file" (LUA_USER_H, set by lua_wasi_conf.h): lua.h includes it
 * after luaconf.h, so the settings here replace luaconf.h's for every Lua source. */
#ifndef SANDBOX_LUA_WASI_USER_H_
#define SANDBOX_LUA_WASI_USER_H_

#include "lua_stack_limit.h"

/* Unbounded recursion must reach Lua's stack limit before the memory cap (lua_stack_limit.h). */
#undef LUAI_MAXSTACK
#define LUAI_MAXSTACK SANDBOX_LUA_MAX_STACK_SLOTS

/* os.date: glibc names the zone of a UTC date ("!" formats, gmtime) "GMT" for %Z where
 * wasi-libc says "UTC"; lua_wasi_time.c gives the Debian name. <time.h> comes first so that the
 * strftime macro applies to Lua's calls only, not to its declaration. */
#include <stddef.h>
#include <time.h>
struct tm* sandbox_lua_gmtime(const time_t* t, struct tm* result);
struct tm* sandbox_lua_localtime(const time_t* t, struct tm* result);
size_t sandbox_lua_strftime(char* s, size_t max, const char* format, const struct tm* tm);
#define l_gmtime(t, r) sandbox_lua_gmtime(t, r)
#define l_localtime(t, r) sandbox_lua_localtime(t, r)
#define strftime(s, max, format, tm) sandbox_lua_strftime(s, max, format, tm)

#endif

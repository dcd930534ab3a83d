/* Configuration injected (-include) into every Lua source compiled for wasm32-wasi. */
#ifndef SANDBOX_LUA_WASI_CONF_H_
#define SANDBOX_LUA_WASI_CONF_H_

/* Settings that must follow luaconf.h's (lua.h includes this header after it). */
#define LUA_USER_H "lua_wasi_user.h"

/* WASI has no tmpnam(): os.tmpname() reports failure instead. */
#define LUA_TMPNAMBUFSIZE 32
#define lua_tmpnam(b, e) \
  {                      \
    (b)[0] = '\0';       \
    e = 1;               \
  }

/* print() must not flush each line: every write is one output piece for the host, which
 * allows 200 per call. The driver flushes once at the end of each eval. */
#define lua_writeline() (lua_writestring("\n", 1))

#endif

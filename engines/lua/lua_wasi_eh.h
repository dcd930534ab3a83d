/* Lua's error handling without setjmp/longjmp, injected (-include) into every Lua source.
 *
 * Lua raises errors through the LUAI_THROW/LUAI_TRY macros of ldo.c, which it defines only when
 * they are not defined already. Here a throw starts a Binaryen asyncify *unwind*: every
 * instrumented frame returns at once, up to luawasi_try, the one frame left uninstrumented
 * (wasm-opt --asyncify --pass-arg=asyncify-removelist@luawasi_try), which stops the unwind and
 * reports the error. No rewind ever happens, so the module is post-processed with
 * --mod-asyncify-always-and-only-unwind. The result imports nothing beyond WASI (the asyncify
 * imports become internal functions) and needs no Wasm exception handling.
 *
 * LUAI_TRY is used once, in luaD_rawrunprotected(L, f, ud): hence the f/ud references. */
#ifndef SANDBOX_LUA_WASI_EH_H_
#define SANDBOX_LUA_WASI_EH_H_

struct lua_State;
typedef void (*luawasi_pfunc)(struct lua_State* L, void* ud);

/* Runs f(L, ud); returns 1 when it ended by a throw, 0 when it returned normally. */
int luawasi_try(luawasi_pfunc f, struct lua_State* L, void* ud);
/* Starts the unwind and returns; the caller's frames return in turn. */
void luawasi_throw(void);

#define luai_jmpbuf int
#define LUAI_THROW(L, c) luawasi_throw()
#define LUAI_TRY(L, c, a)          \
  if (luawasi_try(f, L, ud)) {     \
    if ((c)->status == 0) (c)->status = -1; \
  }
/* luaD_throw and friends must be able to return while the unwind is in progress. */
#define l_noret void

#endif

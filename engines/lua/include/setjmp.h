/* <setjmp.h> for Lua on wasm32 (Debian's wasi-libc has none), for clang's Wasm exception-handling
 * lowering of setjmp/longjmp (-mllvm -wasm-enable-sjlj -mexception-handling).
 *
 * clang rewrites every call to setjmp and longjmp: setjmp(env) records the calling function's
 * invocation and a label with __wasm_setjmp, and longjmp(env, value) becomes __wasm_longjmp,
 * which throws the __c_longjmp tag; the function that called setjmp catches it and asks
 * __wasm_setjmp_test whether the jump is its own (lua_wasi_sjlj.c implements the three). The
 * buffer therefore only holds what those functions keep; no registers are saved. */
#ifndef SANDBOX_LUA_SETJMP_H_
#define SANDBOX_LUA_SETJMP_H_

#include <stdint.h>

#ifndef __wasm_exception_handling__
#error "Lua's setjmp/longjmp needs -mexception-handling -mllvm -wasm-enable-sjlj"
#endif

typedef struct sandbox_lua_jmp_buf {
  void* invocation; /* the setjmp caller's invocation, 0 until setjmp ran */
  uint32_t label;   /* which setjmp call site in that invocation */
  /* The __c_longjmp payload: a pointer to these two. */
  void* thrown_env;
  int thrown_value;
} jmp_buf[1];

int setjmp(jmp_buf env) __attribute__((returns_twice));
_Noreturn void longjmp(jmp_buf env, int value);

#endif

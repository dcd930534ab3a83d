/* Debian's wasi-libc has no <setjmp.h>. Lua's ldo.c includes it, but with lua_wasi_eh.h injected
 * it uses neither jmp_buf nor setjmp/longjmp, so an empty header is all it needs. */
#ifndef SANDBOX_LUA_SETJMP_H_
#define SANDBOX_LUA_SETJMP_H_
#endif

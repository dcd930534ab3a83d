/* The run-time half of clang's Wasm-EH setjmp/longjmp lowering (include/setjmp.h). clang-19
 * emits calls to these three functions and the catch code around every call made by a function
 * that calls setjmp:
 *   setjmp(env)         -> __wasm_setjmp(env, label, invocation); the call site then returns 0
 *   longjmp(env, value) -> __wasm_longjmp(env, value): throws tag __c_longjmp with a pointer to
 *                          {env, value}
 *   catch __c_longjmp   -> __wasm_setjmp_test(env, invocation): the label of the setjmp site to
 *                          resume (setjmp then returns value), or 0 when the jump belongs to
 *                          another function, which rethrows it with __wasm_longjmp.
 * `invocation` is an address in the setjmp caller's stack frame, unique while it runs. */
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

void __wasm_setjmp(void* env, uint32_t label, void* invocation);
uint32_t __wasm_setjmp_test(void* env, void* invocation);
_Noreturn void __wasm_longjmp(void* env, int value);

void __wasm_setjmp(void* env, uint32_t label, void* invocation) {
  struct sandbox_lua_jmp_buf* buf = env;
  if (label == 0 || invocation == NULL) __builtin_trap();
  buf->invocation = invocation;
  buf->label = label;
}

uint32_t __wasm_setjmp_test(void* env, void* invocation) {
  const struct sandbox_lua_jmp_buf* buf = env;
  return buf->invocation == invocation ? buf->label : 0;
}

/* The __c_longjmp tag is number 1 of __builtin_wasm_throw (0 is C++'s __cpp_exception). */
enum { kCLongjmpTag = 1 };

_Noreturn void __wasm_longjmp(void* env, int value) {
  struct sandbox_lua_jmp_buf* buf = env;
  if (buf->invocation == NULL) __builtin_trap(); /* longjmp to a buffer setjmp never filled */
  buf->thrown_env = env;
  buf->thrown_value = value == 0 ? 1 : value;
  __builtin_wasm_throw(kCLongjmpTag, &buf->thrown_env);
}

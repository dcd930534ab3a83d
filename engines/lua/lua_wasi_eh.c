/* The asyncify unwind behind lua_wasi_eh.h. */
#include <stdint.h>

#include "lua_wasi_eh.h"

/* Binaryen's asyncify pass implements these two imports itself. */
__attribute__((import_module("asyncify"), import_name("start_unwind"))) void asyncify_start_unwind(
    void* data);
__attribute__((import_module("asyncify"), import_name("stop_unwind"))) void asyncify_stop_unwind(
    void);

/* stack_pointer.S */
uint32_t sbx_get_stack_pointer(void);
void sbx_set_stack_pointer(uint32_t sp);

/* The unwind saves each frame's locals here (they are never read back: no rewind). Lua's C-call
 * limit (LUAI_MAXCCALLS, 200) bounds the depth. */
enum { kUnwindSpace = 1 << 20 };
static struct {
  uint32_t cur;
  uint32_t end;
} unwind_data;
static char unwind_space[kUnwindSpace];
static volatile int unwinding;

void luawasi_throw(void) {
  unwind_data.cur = (uint32_t)(uintptr_t)unwind_space;
  unwind_data.end = (uint32_t)(uintptr_t)(unwind_space + sizeof unwind_space);
  unwinding = 1;
  asyncify_start_unwind(&unwind_data);
}

/* Must never be inlined: it is the frame asyncify leaves uninstrumented. */
__attribute__((noinline)) int luawasi_try(luawasi_pfunc f, struct lua_State* L, void* ud) {
  uint32_t sp = sbx_get_stack_pointer();
  f(L, ud);
  if (unwinding) {
    asyncify_stop_unwind();
    unwinding = 0;
    sbx_set_stack_pointer(sp);
    return 1;
  }
  return 0;
}

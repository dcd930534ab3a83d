/* Wasm exception handling state (legacy EH as wasm2c 1.0.32 emits it), thread-local so guests
 * on different threads never see each other's exceptions. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "wasm/host_call.h"
#include "wasm/thread_state.h"

static uint32_t g_next_tag;
static SANDBOX_WASM_TLS uint32_t tl_tag;
static SANDBOX_WASM_TLS uint32_t tl_size;
static SANDBOX_WASM_TLS uint8_t* tl_buffer;
static SANDBOX_WASM_TLS uint32_t tl_capacity;
static SANDBOX_WASM_TLS WASM_RT_UNWIND_TARGET* tl_unwind;

void* sandbox_wasm_swap_unwind_target(void* target) {
  void* old = tl_unwind;
  tl_unwind = target;
  return old;
}

uint32_t wasm_rt_register_tag(uint32_t size) {
  (void)size;
  return __atomic_fetch_add(&g_next_tag, 1, __ATOMIC_RELAXED);
}

/* The payload buffer is freed when its thread exits (a pthread key's destructor). */
static pthread_once_t g_buffer_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_buffer_key;
static int g_buffer_key_ok;

static void make_buffer_key(void) {
  g_buffer_key_ok = pthread_key_create(&g_buffer_key, free) == 0;
}

void wasm_rt_load_exception(uint32_t tag, uint32_t size, const void* values) {
  if (size > tl_capacity) {
    sandbox_wasm_host_enter();
    pthread_once(&g_buffer_key_once, make_buffer_key);
    uint8_t* grown = realloc(tl_buffer, size);
    if (grown != NULL) {
      tl_buffer = grown;
      tl_capacity = size;
      if (g_buffer_key_ok) pthread_setspecific(g_buffer_key, grown);
    }
    sandbox_wasm_host_leave();
    if (grown == NULL) {
      sandbox_wasm_trap_with_message(SANDBOX_TRAP_HOST_ERROR, "out of memory for an exception");
    }
  }
  tl_tag = tag;
  tl_size = size;
  if (size > 0) memcpy(tl_buffer, values, size);
}

WASM_RT_NO_RETURN void wasm_rt_throw(void) {
  if (tl_unwind == NULL) wasm_rt_trap(WASM_RT_TRAP_UNCAUGHT_EXCEPTION);
  longjmp(*tl_unwind, WASM_RT_TRAP_UNCAUGHT_EXCEPTION);
}

WASM_RT_UNWIND_TARGET* wasm_rt_get_unwind_target(void) { return tl_unwind; }
void wasm_rt_set_unwind_target(WASM_RT_UNWIND_TARGET* target) { tl_unwind = target; }
uint32_t wasm_rt_exception_tag(void) { return tl_tag; }
uint32_t wasm_rt_exception_size(void) { return tl_size; }
void* wasm_rt_exception(void) { return tl_buffer; }

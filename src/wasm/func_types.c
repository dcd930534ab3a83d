/* The process-wide function-type registry (call_indirect compares these ids). Module init runs
 * on any thread, so registration is under a mutex; equal signatures get equal ids. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wasm-rt.h>

typedef struct {
  uint32_t params;
  uint32_t results;
  wasm_rt_type_t* types;
} func_type;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static func_type* g_types;
static uint32_t g_count;
static uint32_t g_capacity;

uint32_t wasm_rt_register_func_type(uint32_t params, uint32_t results, ...) {
  uint32_t n = params + results;
  wasm_rt_type_t* types = malloc(sizeof(wasm_rt_type_t) * (n ? n : 1));
  if (types == NULL) {
    fprintf(stderr, "sandbox wasm: out of memory registering a function type\n");
    abort();
  }
  va_list ap;
  va_start(ap, results);
  for (uint32_t i = 0; i < n; i++) types[i] = va_arg(ap, wasm_rt_type_t);
  va_end(ap);

  pthread_mutex_lock(&g_mu);
  for (uint32_t i = 0; i < g_count; i++) {
    const func_type* t = &g_types[i];
    if (t->params == params && t->results == results &&
        memcmp(t->types, types, n * sizeof *types) == 0) {
      pthread_mutex_unlock(&g_mu);
      free(types);
      return i + 1;
    }
  }
  if (g_count == g_capacity) {
    uint32_t capacity = g_capacity ? g_capacity * 2 : 64;
    func_type* grown = realloc(g_types, capacity * sizeof *grown);
    if (grown == NULL) {
      fprintf(stderr, "sandbox wasm: out of memory registering a function type\n");
      abort();
    }
    g_types = grown;
    g_capacity = capacity;
  }
  g_types[g_count] = (func_type){params, results, types};
  uint32_t id = ++g_count;
  pthread_mutex_unlock(&g_mu);
  return id;
}

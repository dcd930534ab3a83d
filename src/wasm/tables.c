/* Funcref and externref tables. Allocating or growing a table calls the allocator, so it runs
 * as host code (an interrupt is deferred, never delivered inside malloc; a fault there is a
 * host bug, never a guest trap). */
#define _GNU_SOURCE
#include <stdlib.h>

#include "wasm/host_call.h"

#define DEFINE_TABLE_OPS(type)                                                             \
  void wasm_rt_allocate_##type##_table(wasm_rt_##type##_table_t* table, uint32_t elements, \
                                       uint32_t max_elements) {                            \
    table->size = 0;                                                                       \
    table->max_size = max_elements;                                                        \
    sandbox_wasm_host_enter();                                                             \
    table->data =                                                                          \
        (wasm_rt_##type##_t*)calloc(elements ? elements : 1, sizeof(wasm_rt_##type##_t));  \
    if (table->data == NULL) {                                                             \
      sandbox_wasm_trap_with_message(SANDBOX_TRAP_HOST_ERROR, "cannot allocate a table");  \
    }                                                                                      \
    table->size = elements;                                                                \
    sandbox_wasm_host_leave();                                                             \
  }                                                                                        \
  void wasm_rt_free_##type##_table(wasm_rt_##type##_table_t* table) {                      \
    free((void*)table->data);                                                              \
    table->data = NULL;                                                                    \
    table->size = 0;                                                                       \
  }                                                                                        \
  uint32_t wasm_rt_grow_##type##_table(wasm_rt_##type##_table_t* table, uint32_t delta,    \
                                       wasm_rt_##type##_t init) {                          \
    uint32_t old = table->size;                                                            \
    uint64_t size = (uint64_t)old + delta;                                                 \
    if (size > table->max_size || size > UINT32_MAX / 2) return UINT32_MAX;                \
    if (delta == 0) return old;                                                            \
    sandbox_wasm_host_enter();                                                             \
    wasm_rt_##type##_t* data = (wasm_rt_##type##_t*)realloc(                               \
        (void*)table->data, (size_t)size * sizeof(wasm_rt_##type##_t));                    \
    if (data != NULL) {                                                                    \
      table->data = data;                                                                  \
      for (uint64_t i = old; i < size; i++) table->data[i] = init;                         \
      table->size = (uint32_t)size;                                                        \
    }                                                                                      \
    sandbox_wasm_host_leave();                                                             \
    return data != NULL ? old : UINT32_MAX;                                                \
  }

DEFINE_TABLE_OPS(funcref)
DEFINE_TABLE_OPS(externref)

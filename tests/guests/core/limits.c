// The runtime's test guest: one export per limit and trap, state for snapshot/restore, and
// imports for nesting. Built without libc (no WASI needed): -nostdlib, no entry point.
#include <stdint.h>

#define EXPORT(name) __attribute__((export_name(#name)))
#define IMPORT(module, name) __attribute__((import_module(#module), import_name(#name)))

IMPORT(env, host_callback) uint32_t host_callback(uint32_t x);
IMPORT(env, host_crash) void host_crash(void);
IMPORT(env, not_provided) uint32_t not_provided(uint32_t x);

__asm__(".globaltype __stack_pointer, i32\n");

// ---- plain computation ----

EXPORT(add) uint32_t add(uint32_t a, uint32_t b) { return a + b; }
EXPORT(add64) uint64_t add64(uint64_t a, uint64_t b) { return a + b; }
EXPORT(mix) double mix(double a, float b, int64_t c) { return a * b + (double)c; }

// A deterministic amount of work: n iterations of a hash loop with a call per iteration.
__attribute__((noinline)) static uint32_t step(uint32_t h, uint32_t i) {
  h ^= i;
  h *= 16777619u;
  return h;
}
EXPORT(work) uint32_t work(uint32_t n) {
  uint32_t h = 2166136261u;
  for (uint32_t i = 0; i < n; i++) h = step(h, i);
  return h;
}

// ---- limits ----

// Never returns; calls a function every iteration (metered at entry and loop header).
EXPORT(loop_forever) void loop_forever(void) {
  volatile uint32_t sink = 0;
  for (uint32_t i = 0;; i++) sink = step(sink, i);
}

// Never returns and never calls anything: only the deadline stops it (or fuel, per loop).
EXPORT(spin) void spin(void) {
  volatile uint32_t x = 0;
  for (;;) x = x + 1;
}

// Grows memory by `pages`; returns the old size in pages or -1 (0xffffffff).
EXPORT(grow) uint32_t grow(uint32_t pages) {
  return (uint32_t)__builtin_wasm_memory_grow(0, pages);
}
EXPORT(pages) uint32_t pages(void) { return (uint32_t)__builtin_wasm_memory_size(0); }

// Grows 1 MiB at a time (touching every page) until a grow fails; returns the pages reached.
EXPORT(memory_bomb) uint32_t memory_bomb(void) {
  for (;;) {
    int32_t old = __builtin_wasm_memory_grow(0, 16);
    if (old < 0) return (uint32_t)__builtin_wasm_memory_size(0);
    volatile uint8_t* p = (volatile uint8_t*)(uintptr_t)((uint32_t)old * 65536u);
    for (uint32_t i = 0; i < 16u * 65536u; i += 4096) p[i] = 1;
  }
}

// Recursion through a function pointer the compiler cannot see through: it uses only the native
// stack (no shadow-stack frame), so it ends at the thread's guard page.
static uint32_t recurse_impl(uint32_t n);
static uint32_t (*volatile recurse_ptr)(uint32_t) = recurse_impl;
static uint32_t recurse_impl(uint32_t n) { return n == 0 ? 0 : recurse_ptr(n - 1) + n; }
EXPORT(recurse) uint32_t recurse(uint32_t n) { return recurse_ptr(n); }

// Shadow-stack recursion: every level keeps a buffer in linear memory, so it overruns the
// shadow stack, which (--stack-first) wraps below address 0 and traps out of bounds.
__attribute__((noinline)) static uint32_t shadow_impl(uint32_t n) {
  volatile char buf[256];
  buf[0] = (char)n;
  return n == 0 ? 0 : shadow_impl(n - 1) + (uint32_t)buf[0];
}
EXPORT(shadow_recurse) uint32_t shadow_recurse(uint32_t n) { return shadow_impl(n); }

EXPORT(load) uint32_t load(uint32_t address) { return *(volatile uint32_t*)(uintptr_t)address; }
EXPORT(store) void store(uint32_t address, uint32_t value) {
  *(volatile uint32_t*)(uintptr_t)address = value;
}
EXPORT(trap_unreachable) void trap_unreachable(void) { __builtin_trap(); }
EXPORT(divide) int32_t divide(int32_t a, int32_t b) { return a / b; }

typedef uint32_t (*unary_fn)(uint32_t);
static uint32_t twice(uint32_t x) { return 2 * x; }
static volatile uintptr_t table_entry;
// call_indirect through a pointer the guest controls: index 0 is the null entry.
EXPORT(call_indirect) uint32_t call_indirect(uint32_t index, uint32_t x) {
  table_entry = (uintptr_t)&twice;
  unary_fn f = (unary_fn)(index == 1 ? table_entry : (uintptr_t)index);
  return f(x);
}

// ---- state for snapshot/restore ----

static uint64_t counter = 7;
static char message[32] = "initial";
static uint32_t heap_page;  // a page obtained with memory.grow, holding a pattern

EXPORT(bump) uint64_t bump(uint64_t by) {
  counter += by;
  return counter;
}
EXPORT(counter_value) uint64_t counter_value(void) { return counter; }
EXPORT(set_message) void set_message(uint32_t seed) {
  for (int i = 0; i < 31; i++) message[i] = (char)('a' + (seed + (uint32_t)i) % 26);
  message[31] = 0;
}
EXPORT(message_checksum) uint32_t message_checksum(void) {
  uint32_t h = 0;
  for (int i = 0; i < 32; i++) h = h * 31u + (uint8_t)message[i];
  return h;
}
// Grows one page and fills it with a pattern derived from `seed`; returns the page index.
EXPORT(fill_new_page) uint32_t fill_new_page(uint32_t seed) {
  int32_t old = __builtin_wasm_memory_grow(0, 1);
  if (old < 0) return 0xffffffffu;
  heap_page = (uint32_t)old;
  uint32_t* p = (uint32_t*)(uintptr_t)(heap_page * 65536u);
  for (uint32_t i = 0; i < 16384; i++) p[i] = seed * 2654435761u + i;
  return heap_page;
}
EXPORT(page_checksum) uint32_t page_checksum(void) {
  if (heap_page == 0) return 0;
  const uint32_t* p = (const uint32_t*)(uintptr_t)(heap_page * 65536u);
  uint32_t h = 0;
  for (uint32_t i = 0; i < 16384; i++) h = h * 31u + p[i];
  return h;
}

// Moves the shadow-stack pointer and leaves it moved: the mutable global no longer has its
// post-instantiation value, as if a call were still in progress.
EXPORT(leak_stack_pointer) void leak_stack_pointer(void) {
  __asm__ volatile(
      "global.get __stack_pointer\n\ti32.const 64\n\ti32.sub\n\tglobal.set __stack_pointer\n");
}
EXPORT(restore_stack_pointer) void restore_stack_pointer(void) {
  __asm__ volatile(
      "global.get __stack_pointer\n\ti32.const 64\n\ti32.add\n\tglobal.set __stack_pointer\n");
}

// ---- imports: nesting, unsupported imports, host faults ----

// host -> guest (call_host) -> import host_callback -> guest (add_one, or deeper) ...
EXPORT(call_host) uint32_t call_host(uint32_t x) { return host_callback(x) + 1000; }
EXPORT(add_one) uint32_t add_one(uint32_t x) { return x + 1; }
EXPORT(call_missing) uint32_t call_missing(uint32_t x) { return not_provided(x); }
EXPORT(call_host_crash) void call_host_crash(void) { host_crash(); }

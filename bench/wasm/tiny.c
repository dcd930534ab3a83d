// A small module for the instantiate+free benchmark: a little data, a table, a few exports.
#include <stdint.h>

static char greeting[64] = "hello from a tiny module";
static uint32_t calls;
typedef uint32_t (*fn)(uint32_t);
static uint32_t twice(uint32_t x) { return 2 * x; }
static uint32_t square(uint32_t x) { return x * x; }
static fn table[2] = {twice, square};

__attribute__((export_name("run"))) uint32_t run(uint32_t i, uint32_t x) {
  calls++;
  return table[i & 1](x) + (uint8_t)greeting[i % 24];
}

__attribute__((export_name("add"))) uint32_t add(uint32_t a, uint32_t b) { return a + b; }

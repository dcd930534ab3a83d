// The CPU benchmark of bench/wasm, compiled twice from this one file: natively (gcc -O2) and to
// wasm32 (clang-19) then through sandbox-wasmc, with and without fuel. Four kernels that look
// like what language engines do: hashing with calls, a sieve over a 1 MiB array, a
// switch-dispatched bytecode loop, and a recursive quicksort.
#include <stdint.h>

#ifdef __wasm__
#define EXPORT(name) __attribute__((export_name(#name)))
#else
#define EXPORT(name)
#endif

__attribute__((noinline)) static uint32_t mix(uint32_t h, uint32_t v) {
  h ^= v;
  h *= 16777619u;
  return h ^ (h >> 15);
}

static uint32_t hash_kernel(uint32_t n) {
  uint32_t h = 2166136261u;
  for (uint32_t i = 0; i < n; i++) h = mix(h, i);
  return h;
}

#define SIEVE_SIZE (1u << 20)
static uint8_t sieve[SIEVE_SIZE];

static uint32_t sieve_kernel(uint32_t rounds) {
  uint32_t primes = 0;
  for (uint32_t r = 0; r < rounds; r++) {
    for (uint32_t i = 0; i < SIEVE_SIZE; i++) sieve[i] = 1;
    primes = 0;
    for (uint32_t i = 2; i < SIEVE_SIZE; i++) {
      if (!sieve[i]) continue;
      primes++;
      for (uint32_t j = i + i; j < SIEVE_SIZE; j += i) sieve[j] = 0;
    }
  }
  return primes;
}

// A toy stack machine: the dispatch loop of an interpreter.
enum { OP_PUSH, OP_ADD, OP_MUL, OP_DUP, OP_SWAP, OP_DROP, OP_JNZ, OP_DEC, OP_HALT };
static const uint8_t program[] = {OP_PUSH,
                                  0,  // acc
                                  OP_PUSH,
                                  200,  // counter (patched)
                                  /* 4: loop */ OP_SWAP,
                                  OP_PUSH,
                                  3,
                                  OP_MUL,
                                  OP_PUSH,
                                  7,
                                  OP_ADD,
                                  OP_SWAP,
                                  OP_DEC,
                                  OP_DUP,
                                  OP_JNZ,
                                  4,
                                  OP_DROP,
                                  OP_HALT};

static uint32_t interp_kernel(uint32_t runs) {
  uint32_t stack[16];
  uint32_t result = 0;
  for (uint32_t r = 0; r < runs; r++) {
    uint32_t sp = 0;
    uint32_t pc = 0;
    for (;;) {
      uint8_t op = program[pc++];
      switch (op) {
        case OP_PUSH: {
          uint32_t at = pc++;
          stack[sp++] = program[at] + (at == 3 ? (r & 7) : 0);
          break;
        }
        case OP_ADD:
          sp--;
          stack[sp - 1] += stack[sp];
          break;
        case OP_MUL:
          sp--;
          stack[sp - 1] *= stack[sp];
          break;
        case OP_DUP:
          stack[sp] = stack[sp - 1];
          sp++;
          break;
        case OP_SWAP: {
          uint32_t t = stack[sp - 1];
          stack[sp - 1] = stack[sp - 2];
          stack[sp - 2] = t;
          break;
        }
        case OP_DROP:
          sp--;
          break;
        case OP_JNZ: {
          uint8_t target = program[pc++];
          if (stack[--sp]) pc = target;
          break;
        }
        case OP_DEC:
          stack[sp - 1]--;
          break;
        case OP_HALT:
          goto done;
      }
    }
  done:
    result = result * 31u + stack[sp - 1];
  }
  return result;
}

#define SORT_SIZE 100000u
static uint32_t items[SORT_SIZE];

static void quicksort(uint32_t* a, int32_t lo, int32_t hi) {
  while (lo < hi) {
    uint32_t pivot = a[lo + (hi - lo) / 2];
    int32_t i = lo, j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        uint32_t t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (j - lo < hi - i) {
      quicksort(a, lo, j);
      lo = i;
    } else {
      quicksort(a, i, hi);
      hi = j;
    }
  }
}

static uint32_t sort_kernel(uint32_t rounds) {
  uint32_t check = 0;
  uint32_t seed = 12345;
  for (uint32_t r = 0; r < rounds; r++) {
    for (uint32_t i = 0; i < SORT_SIZE; i++) {
      seed = seed * 1103515245u + 12345u;
      items[i] = seed >> 3;
    }
    quicksort(items, 0, (int32_t)SORT_SIZE - 1);
    check = check * 31u + items[SORT_SIZE / 2];
  }
  return check;
}

// Runs one kernel (0-3) at `scale` times its base size; kernel 4 runs all of them.
EXPORT(cpu_kernel) uint32_t cpu_kernel(uint32_t kernel, uint32_t scale) {
  switch (kernel) {
    case 0:
      return hash_kernel(20000000u * scale);
    case 1:
      return sieve_kernel(8u * scale);
    case 2:
      return interp_kernel(60000u * scale);
    case 3:
      return sort_kernel(4u * scale);
  }
  return 0;
}

// One unit of `scale` runs every kernel once at its base size.
EXPORT(cpu_bench) uint32_t cpu_bench(uint32_t scale) {
  uint32_t h = 0;
  for (uint32_t k = 0; k < 4; k++) h ^= cpu_kernel(k, scale);
  return h;
}

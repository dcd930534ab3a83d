// FUZZ_CHECK(cond): a property every fuzz target checks beyond "no crash"; a failure prints
// the condition and aborts, which libFuzzer (and the corpus replay) report as a crash.
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                            \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                 \
    }                                                                               \
  } while (0)

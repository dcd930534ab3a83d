// CPU sets for tests that hold a thread to one CPU (sched_setaffinity(2)).
#pragma once

#include <sched.h>

namespace sandbox::testing_support {

// The set of only the first CPU in `allowed` (empty when `allowed` is): a CPU the thread may run
// on, to hold it there.
inline cpu_set_t first_cpu_of(const cpu_set_t& allowed) {
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &allowed)) {
      CPU_SET(cpu, &one);
      break;
    }
  }
  return one;
}

}  // namespace sandbox::testing_support

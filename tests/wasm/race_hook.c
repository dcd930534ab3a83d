#define _GNU_SOURCE
#include "race_hook.h"

#include <pthread.h>
#include <signal.h>

#include "wasm/runtime.h"
#include "wasm/thread_state.h"

static volatile sig_atomic_t g_point;
static volatile sig_atomic_t g_fired;
static volatile sig_atomic_t g_blocked;

/* Async-signal-safe: it runs inside the SIGSEGV handler for the tracking-fault point. */
static void on_race_point(int point) {
  if (point != g_point) return;
  g_point = 0;
  uint64_t serial = 0;
  for (sandbox_wasm_frame* f = sandbox_wasm_tl_frame; f != NULL && serial == 0; f = f->prev) {
    serial = f->deadline_serial;
  }
  if (serial == 0) return;
  sigset_t mask;
  g_blocked = sigprocmask(SIG_BLOCK, NULL, &mask) == 0 &&
              sigismember(&mask, sandbox_wasm_interrupt_signal()) == 1;
  union sigval value;
  value.sival_ptr = (void*)(uintptr_t)serial;
  /* Set first: without the runtime's protection the signal jumps out of pthread_sigqueue. */
  g_fired = 1;
  if (pthread_sigqueue(pthread_self(), sandbox_wasm_interrupt_signal(), value) != 0) g_fired = 0;
}

void sandbox_test_arm_race(int point) {
  g_fired = 0;
  g_blocked = 0;
  g_point = point;
  sandbox_wasm_race_hook = point != 0 ? on_race_point : NULL;
}

int sandbox_test_race_fired(void) { return g_fired; }

int sandbox_test_race_signal_blocked(void) { return g_blocked; }

/* Guest call frames, traps and host brackets (runtime.h describes the invariants). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasm/host_call.h"
#include "wasm/runtime.h"
#include "wasm/thread_state.h"

SANDBOX_WASM_TLS sandbox_wasm_frame* volatile sandbox_wasm_tl_frame;
SANDBOX_WASM_TLS volatile uint32_t sandbox_wasm_tl_in_host;
SANDBOX_WASM_TLS volatile sig_atomic_t sandbox_wasm_tl_pending;
SANDBOX_WASM_TLS volatile sig_atomic_t sandbox_wasm_tl_interrupt_blocked;

static SANDBOX_WASM_TLS uint32_t tl_exit_code;
static SANDBOX_WASM_TLS int tl_has_message;
static SANDBOX_WASM_TLS char tl_message[256];

/* wasm exception handling keeps its unwind target per thread (exceptions.c); a guest frame
 * starts with none so an inner guest's throw never lands in an outer guest's catch. */
void* sandbox_wasm_swap_unwind_target(void* target);

int sandbox_wasm_chain_interrupted(const sandbox_wasm_frame* frame) {
  for (; frame != NULL; frame = frame->prev) {
    if (frame->interrupted) return 1;
  }
  return 0;
}

uint32_t sandbox_wasm_run(sandbox_wasm_frame* frame, void (*thunk)(void*), void* arg) {
  sandbox_wasm_thread_init();
  frame->prev = sandbox_wasm_tl_frame;
  frame->ready = 0;
  frame->interrupted = 0;
  frame->saved_in_host = sandbox_wasm_tl_in_host;
  frame->saved_unwind_target = NULL;
  SANDBOX_WASM_SIGNAL_FENCE();
  sandbox_wasm_tl_frame = frame;
  SANDBOX_WASM_SIGNAL_FENCE();
  /* No signal mask is saved (that would cost a system call per guest call): the only signal a
   * handler jumps with blocked is the deadline signal, unblocked below (invariant 4). */
  uint32_t code = (uint32_t)sigsetjmp(frame->jump, 0);
  if (code == 0) {
    frame->saved_unwind_target = sandbox_wasm_swap_unwind_target(NULL);
    if (frame->guest) sandbox_wasm_tl_in_host = 0;
    frame->code_in_host = sandbox_wasm_tl_in_host;
    SANDBOX_WASM_SIGNAL_FENCE();
    frame->ready = 1;
    SANDBOX_WASM_SIGNAL_FENCE();
    /* An interrupt that arrived while the frame was being pushed was deferred. */
    if (frame->guest && sandbox_wasm_tl_pending && sandbox_wasm_chain_interrupted(frame)) {
      sandbox_wasm_tl_pending = 0;
      sandbox_wasm_trap_from_signal(SANDBOX_TRAP_INTERRUPTED);
    }
    thunk(arg);
  }
  /* Leave: from here on a handler defers instead of jumping (frame not ready, host count back
   * to the enclosing value before the frame is unlinked). */
  frame->ready = 0;
  SANDBOX_WASM_SIGNAL_FENCE();
  if (sandbox_wasm_tl_interrupt_blocked) {
    /* A handler trapped here with the deadline signal blocked. The frame is no longer ready, so
     * a deadline pending meanwhile is deferred (or ignored) once unblocked, never taken as a
     * second trap into this frame. */
    sandbox_wasm_tl_interrupt_blocked = 0;
    sigset_t interrupt;
    sigemptyset(&interrupt);
    sigaddset(&interrupt, sandbox_wasm_interrupt_signal());
    pthread_sigmask(SIG_UNBLOCK, &interrupt, NULL);
  }
  sandbox_wasm_tl_in_host = frame->saved_in_host;
  sandbox_wasm_swap_unwind_target(frame->saved_unwind_target);
  SANDBOX_WASM_SIGNAL_FENCE();
  sandbox_wasm_tl_frame = frame->prev;
  SANDBOX_WASM_SIGNAL_FENCE();
  sandbox_wasm_tl_pending = sandbox_wasm_chain_interrupted(frame->prev);
  return code;
}

static __attribute__((noreturn)) void jump_to_frame(uint32_t code) {
  sandbox_wasm_frame* frame = sandbox_wasm_tl_frame;
  if (frame == NULL || !frame->ready) {
    /* Our own invariant: only guest code and imports called by it can trap. */
    fprintf(stderr, "sandbox wasm: trap %u outside a guest call\n", code);
    abort();
  }
  if (code == 0) code = SANDBOX_TRAP_HOST_ERROR;
  siglongjmp(frame->jump, (int)code);
}

/* A trap raised by a handler (or the runtime) has no message: a message left by an earlier
 * trap on this thread must not describe this one. */
void sandbox_wasm_trap_from_signal(uint32_t code) {
  tl_has_message = 0;
  jump_to_frame(code);
}

void sandbox_wasm_trap_from_handler(uint32_t code) {
  sandbox_wasm_tl_interrupt_blocked = 1;
  SANDBOX_WASM_SIGNAL_FENCE();
  sandbox_wasm_trap_from_signal(code);
}

void sandbox_wasm_trap(uint32_t code) { sandbox_wasm_trap_from_signal(code); }

void sandbox_wasm_trap_with_message(uint32_t code, const char* message) {
  if (message != NULL) {
    snprintf(tl_message, sizeof tl_message, "%s", message);
    tl_has_message = 1;
  } else {
    tl_has_message = 0;
  }
  jump_to_frame(code);
}

WASM_RT_NO_RETURN void wasm_rt_trap(wasm_rt_trap_t code) {
  sandbox_wasm_trap_from_signal((uint32_t)code);
}

const char* sandbox_wasm_last_trap_message(void) { return tl_has_message ? tl_message : NULL; }

void sandbox_wasm_set_exit_code(uint32_t code) { tl_exit_code = code; }
uint32_t sandbox_wasm_exit_code(void) { return tl_exit_code; }

/* Native stack left below the caller's frame (SIZE_MAX when the thread's bounds are unknown). */
static size_t stack_left(void) {
  uintptr_t here = (uintptr_t)__builtin_frame_address(0);
  uintptr_t lo = sandbox_wasm_tl_stack_lo;
  return lo != 0 && here > lo ? here - lo : SIZE_MAX;
}

void sandbox_wasm_host_enter(void) {
  uint32_t depth = sandbox_wasm_tl_in_host;
  /* Guest code calling into the host (runtime.h, invariant 1a): a guest that recursed close to
   * the guard page traps here, before any host frame exists, instead of letting the host
   * overflow the stack (which crashes the process: invariant 1). */
  sandbox_wasm_frame* frame = sandbox_wasm_tl_frame;
  if (frame != NULL && frame->guest && sandbox_wasm_guest_code_running(frame) &&
      stack_left() < SANDBOX_WASM_IMPORT_STACK_RESERVE) {
    sandbox_wasm_trap_from_signal(WASM_RT_TRAP_EXHAUSTION);
  }
  sandbox_wasm_tl_in_host = depth + 1;
}

void sandbox_wasm_host_leave(void) {
  uint32_t depth = sandbox_wasm_tl_in_host;
  if (depth > 0) sandbox_wasm_tl_in_host = depth - 1;
  SANDBOX_WASM_SIGNAL_FENCE();
  if (depth <= 1 && sandbox_wasm_tl_pending) {
    sandbox_wasm_frame* frame = sandbox_wasm_tl_frame;
    if (frame != NULL && frame->ready && frame->guest && sandbox_wasm_chain_interrupted(frame)) {
      sandbox_wasm_tl_pending = 0;
      sandbox_wasm_trap_from_signal(SANDBOX_TRAP_INTERRUPTED);
    }
  }
}

wasm_rt_memory_t* sandbox_wasm_current_memory(void) {
  sandbox_wasm_frame* frame = sandbox_wasm_tl_frame;
  return frame != NULL ? frame->memory : NULL;
}

void* sandbox_wasm_current_instance(void) {
  sandbox_wasm_frame* frame = sandbox_wasm_tl_frame;
  return frame != NULL ? frame->instance : NULL;
}

uint64_t sandbox_wasm_next_serial(void) {
  static uint64_t next;
  return __atomic_add_fetch(&next, 1, __ATOMIC_RELAXED);
}

const char* wasm_rt_strerror(wasm_rt_trap_t trap) {
  switch ((uint32_t)trap) {
    case WASM_RT_TRAP_NONE:
      return "No error";
    case WASM_RT_TRAP_OOB:
      return "Out-of-bounds memory access";
    case WASM_RT_TRAP_INT_OVERFLOW:
      return "Integer overflow";
    case WASM_RT_TRAP_DIV_BY_ZERO:
      return "Integer divide by zero";
    case WASM_RT_TRAP_INVALID_CONVERSION:
      return "Invalid conversion to integer";
    case WASM_RT_TRAP_UNREACHABLE:
      return "Unreachable code executed";
    case WASM_RT_TRAP_CALL_INDIRECT:
      return "Indirect call signature mismatch";
    case WASM_RT_TRAP_UNCAUGHT_EXCEPTION:
      return "Uncaught Wasm exception";
    case WASM_RT_TRAP_EXHAUSTION:
      return "Call stack exhausted";
    case SANDBOX_TRAP_EXIT:
      return "Guest exited";
    case SANDBOX_TRAP_OUT_OF_FUEL:
      return "Execution fuel exhausted";
    case SANDBOX_TRAP_INTERRUPTED:
      return "Execution time limit exceeded";
    case SANDBOX_TRAP_OUTPUT_LIMIT:
      return "Output limit exceeded";
    case SANDBOX_TRAP_UNSUPPORTED:
      return "Unsupported import called";
    case SANDBOX_TRAP_HOST_ERROR:
      return "Host error";
    default:
      return "Unknown trap";
  }
}

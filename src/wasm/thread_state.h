/* Thread-local state shared by call.c (guest call frames) and signals.c (the handlers that
 * trap out of guest code). See runtime.h for the invariants. initial-exec TLS: the runtime is
 * linked into the executable, and these are read from signal handlers. */
#ifndef SANDBOX_WASM_THREAD_STATE_H_
#define SANDBOX_WASM_THREAD_STATE_H_

#include <signal.h>
#include <stdint.h>

#include "wasm/runtime.h"

#define SANDBOX_WASM_TLS _Thread_local __attribute__((tls_model("initial-exec")))

extern SANDBOX_WASM_TLS sandbox_wasm_frame* volatile sandbox_wasm_tl_frame;
extern SANDBOX_WASM_TLS volatile uint32_t sandbox_wasm_tl_in_host;
extern SANDBOX_WASM_TLS volatile sig_atomic_t sandbox_wasm_tl_pending;
/* Set by a signal handler that traps while the deadline signal is blocked (both handlers run
 * with it blocked, and sigsetjmp saves no mask): the frame the trap lands in unblocks it. */
extern SANDBOX_WASM_TLS volatile sig_atomic_t sandbox_wasm_tl_interrupt_blocked;
/* Lowest address of this thread's stack (0: unknown), set by sandbox_wasm_thread_init. */
extern SANDBOX_WASM_TLS uintptr_t sandbox_wasm_tl_stack_lo;

/* Whether `frame` is ready and its own generated code (not host code it called) is running:
 * only then is a fault the guest's (runtime.h, invariant 1). */
static inline int sandbox_wasm_guest_code_running(const sandbox_wasm_frame* frame) {
  return frame != NULL && frame->ready && sandbox_wasm_tl_in_host == frame->code_in_host;
}

/* Unwinds to the innermost ready frame with `code` (also from signal handlers); the trap has
 * no message. */
__attribute__((noreturn)) void sandbox_wasm_trap_from_signal(uint32_t code);

/* Traps from a handler that runs with the deadline signal blocked; the landing frame unblocks
 * it once it is no longer ready (runtime.h, invariant 4). */
__attribute__((noreturn)) void sandbox_wasm_trap_from_handler(uint32_t code);

/* Whether `frame` or an enclosing frame is the target of a deadline interrupt. */
int sandbox_wasm_chain_interrupted(const sandbox_wasm_frame* frame);

/* A compiler barrier that orders these variables against a signal on the same thread. */
#define SANDBOX_WASM_SIGNAL_FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

#endif /* SANDBOX_WASM_THREAD_STATE_H_ */

/* Internal interface of our wasm-rt runtime (the replacement for wabt 1.0.32's
 * wasm-rt-impl.c): guest call frames, thread setup, memory allocation context, pools, the
 * deadline interrupt. Used by the C++ layer (instance.cc, watchdog.cc); generated code only sees
 * wasm-rt.h and host_call.h.
 *
 * Guest call frames. sandbox_wasm_run() pushes a frame on this thread's frame chain, sigsetjmps
 * into it and runs the thunk. A trap (wasm_rt_trap, sandbox_wasm_trap, the SIGSEGV handler, the
 * interrupt handler) siglongjmps to the innermost frame, which pops itself and returns the code.
 * Frames nest: host -> guest -> import -> guest.
 *
 * Per-thread state, all thread-local and touched by the signal handlers:
 *   frame chain        innermost frame; a frame is `ready` once its jump buffer is valid
 *   in_host            > 0 while host code (an import, our runtime's allocator) runs on top of
 *                      the innermost guest frame; a guest frame starts at 0 and restores the
 *                      enclosing value when it pops. Each frame records the value its own
 *                      generated code runs at (code_in_host): in_host above it means host code
 *                      (every provided import is bracketed by the generated wrappers, and the
 *                      runtime brackets its own allocating helpers)
 *   pending interrupt  an interrupt that arrived while in host code (or while a frame was being
 *                      pushed/popped); it fires at the next sandbox_wasm_host_leave() that brings
 *                      in_host back to 0 inside a ready frame
 *
 * Invariants:
 *   1. A handler only siglongjmps to a `ready` frame and only while in_host == 0 (interrupts)
 *      or while the frame's generated code runs (in_host == code_in_host) and the fault
 *      address is in the innermost frame's memory reservation or this thread's stack guard
 *      (faults). Every other fault, including any fault of host code called by the guest
 *      (an import overflowing the stack, the allocator), is passed to the previous handler or
 *      the default action, so host bugs crash normally instead of unwinding host frames.
 *      The deadline signal is blocked while the fault handler runs, so it never interrupts
 *      the write-tracking bookkeeping done there.
 *   1a. Host code entered from guest code always has SANDBOX_WASM_IMPORT_STACK_RESERVE bytes of
 *      native stack: sandbox_wasm_host_enter() traps with stack exhaustion (at a point where no
 *      host frame exists yet) when less is left, so a guest that recursed deep cannot make an
 *      import overflow the stack in host code.
 *   1b. State the runtime changes on behalf of the guest (memory.grow, table growth, fuel
 *      refill bookkeeping) is changed as host code: a deadline that arrives meanwhile fires
 *      after the change is complete.
 *   2. A deadline interrupt carries the serial of the frame it is for; a signal whose serial is
 *      not on this thread's frame chain (the call already returned) is ignored.
 *   3. Popping a frame recomputes `pending` from the remaining chain: an enclosing frame that
 *      was the target of an interrupt stays interrupted until it traps.
 *   4. The deadline signal is blocked while a handler (fault or deadline) runs, and a trap from
 *      a handler jumps with it still blocked: the frame it lands in unblocks it after it stopped
 *      being ready, so a repeat of the signal never runs inside a handler that has not jumped
 *      yet, and a deadline pending meanwhile is deferred by the usual rules instead of trapping
 *      into the same frame twice.
 */
#ifndef SANDBOX_WASM_RUNTIME_H_
#define SANDBOX_WASM_RUNTIME_H_

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <wasm-rt.h>

#include "wasm/host_call.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reserved virtual size of one linear memory: u32 address + u32 offset never leaves it, so
 * generated loads and stores need no bounds checks (WASM_RT_MEMCHECK_SIGNAL_HANDLER). */
#define SANDBOX_WASM_RESERVATION (8ull << 30)
#define SANDBOX_WASM_PAGE_SIZE 65536u
/* wasm_rt_memory_t::size is a u32: 65536 pages would wrap to 0. */
#define SANDBOX_WASM_MAX_PAGES 65535u

typedef struct sandbox_wasm_frame {
  sigjmp_buf jump;
  struct sandbox_wasm_frame* prev;
  /* Set by the caller before sandbox_wasm_run: */
  wasm_rt_memory_t* memory; /* faults inside its reservation are guest OOB; may be NULL */
  void* instance;           /* returned by sandbox_wasm_current_instance() */
  uint64_t deadline_serial; /* 0: no deadline armed for this frame */
  int guest;                /* 1: guest code (in_host starts at 0); 0: host/runtime code */
  /* Managed by the runtime: */
  volatile sig_atomic_t ready;
  volatile sig_atomic_t interrupted;
  uint32_t saved_in_host;
  uint32_t code_in_host; /* in_host while this frame's generated code runs */
  void* saved_unwind_target;
} sandbox_wasm_frame;

/* Native stack left to host code entered from guest code (invariant 1a); documented as
 * sandbox::wasm::kImportStackReserveBytes in include/sandbox/wasm/import.h. */
#define SANDBOX_WASM_IMPORT_STACK_RESERVE ((size_t)256 * 1024)

/* Installs the signal handlers once per process (idempotent, thread-safe). */
void sandbox_wasm_runtime_init(void);
/* Sets up this thread (signal stack, stack bounds); idempotent. */
void sandbox_wasm_thread_init(void);

/* Runs thunk(arg) in `frame`; returns 0, or the trap code (wasm_rt_trap_t or SANDBOX_TRAP_*).
 * After a trap, sandbox_wasm_last_trap_message() and sandbox_wasm_exit_code() describe it. */
uint32_t sandbox_wasm_run(sandbox_wasm_frame* frame, void (*thunk)(void*), void* arg);
/* The message given to sandbox_wasm_trap_with_message by the last trap on this thread, or NULL
 * if that trap had none. */
const char* sandbox_wasm_last_trap_message(void);

/* The signal used for deadline interrupts (a real-time signal). */
int sandbox_wasm_interrupt_signal(void);
/* A fresh, process-unique deadline serial (never 0). */
uint64_t sandbox_wasm_next_serial(void);

/* The `sandbox` import module's context: the fuel global and an optional refill callback. */
typedef struct sandbox_wasm_fuel_context {
  int64_t* fuel; /* the instance's `fuel` global, or NULL */
  /* Returns more fuel, or 0 to trap; must not throw. May be NULL. */
  uint64_t (*refill)(void* host);
  void* host;
  uint64_t refilled; /* total given by refill since the last reset */
} sandbox_wasm_fuel_context;

/* Memory allocation context: wasm_rt_allocate_memory / wasm_rt_free_memory have no parameter
 * for it, so the embedder sets it on the thread around instantiate and free. */
typedef struct sandbox_wasm_pool sandbox_wasm_pool;
typedef struct sandbox_wasm_alloc_context {
  uint32_t cap_pages;      /* 0: no cap beyond the module's maximum */
  sandbox_wasm_pool* pool; /* NULL: mmap/munmap */
} sandbox_wasm_alloc_context;
void sandbox_wasm_set_alloc_context(const sandbox_wasm_alloc_context* context);

sandbox_wasm_pool* sandbox_wasm_pool_create(size_t max_cached);
void sandbox_wasm_pool_destroy(sandbox_wasm_pool* pool);
size_t sandbox_wasm_pool_cached(sandbox_wasm_pool* pool);

/* Reservations currently mapped (live memories plus pooled ones). */
uint64_t sandbox_wasm_live_reservations(void);
/* Grows `memory` by `delta` pages up to its max_pages; returns the old page count or
 * UINT32_MAX (the generated code's memory.grow). */
uint32_t sandbox_wasm_grow(wasm_rt_memory_t* memory, uint32_t delta);

/* Test hook (tests/wasm only; NULL otherwise): called at the points where an asynchronous
 * signal could land in the middle of a state change, so a test can deliver one exactly there.
 * Called from the SIGSEGV handler for SANDBOX_WASM_RACE_TRACKING_FAULT and from the deadline
 * handler for SANDBOX_WASM_RACE_INTERRUPT_JUMP: must be async-signal-safe. */
enum {
  SANDBOX_WASM_RACE_GROW = 1,           /* memory.grow: new pages mapped, size not yet updated */
  SANDBOX_WASM_RACE_TRACKING_FAULT = 2, /* tracking fault: page writable, not yet marked dirty */
  SANDBOX_WASM_RACE_INTERRUPT_JUMP = 3, /* deadline handler: about to trap out of the guest */
};
extern void (*volatile sandbox_wasm_race_hook)(int point);

#ifdef __cplusplus
}
#endif

#endif /* SANDBOX_WASM_RUNTIME_H_ */

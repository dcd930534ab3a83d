/* Signal handling: the SIGSEGV/SIGBUS handler that turns guest faults into traps, the deadline
 * interrupt handler, and per-thread setup (signal stack, stack bounds). Invariants 1, 2 and 4 of
 * runtime.h are enforced here. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wasm/runtime.h"
#include "wasm/thread_state.h"
#include "wasm/write_tracking.h"

#define ALT_STACK_SIZE ((size_t)64 * 1024)
/* A fault this far below the lowest stack address (or this far above it) is taken as the
 * guest's native stack running into the guard region. */
#define STACK_GUARD_BELOW ((uintptr_t)1 << 20)
#define STACK_GUARD_ABOVE ((uintptr_t)64 * 1024)

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_initialized;
static struct sigaction g_old_segv, g_old_bus;
static pthread_key_t g_thread_key;

static SANDBOX_WASM_TLS int tl_thread_ready;
SANDBOX_WASM_TLS uintptr_t sandbox_wasm_tl_stack_lo;

int sandbox_wasm_interrupt_signal(void) { return SIGRTMIN + 4; }

/* Passes a fault we do not claim to whoever handled it before us, or to the default action. */
static void forward_fault(int sig, siginfo_t* info, void* context) {
  const struct sigaction* old = sig == SIGBUS ? &g_old_bus : &g_old_segv;
  if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction != NULL) {
    old->sa_sigaction(sig, info, context);
    return;
  }
  if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
    old->sa_handler(sig);
    return;
  }
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, NULL);
  /* A fault raised by the hardware re-executes and now kills the process with the original
   * faulting instruction on the stack; a signal sent by someone is re-raised. */
  if (info->si_code <= 0) raise(sig);
}

/* Leaves the fault handler by a trap. The deadline signal is blocked while this handler runs
 * (see init_once) and stays blocked through the jump: the frame it lands in unblocks it once it
 * is no longer ready (runtime.h, invariant 4). */
static __attribute__((noreturn)) void trap_from_fault(uint32_t code) {
  sandbox_wasm_trap_from_handler(code);
}

static void on_fault(int sig, siginfo_t* info, void* context) {
  /* A first write to a clean page of a tracked memory (guest or host code): let it through. */
  if (sig == SIGSEGV && info->si_code == SEGV_ACCERR &&
      sandbox_wasm_tracking_fault((uintptr_t)info->si_addr)) {
    return;
  }
  /* Only a fault of the guest's own code is a guest trap. A fault of host code it called (an
   * import running out of stack, the allocator) is a host bug: jumping over its frames would
   * skip destructors or leave a lock held, so it takes the default action instead. */
  sandbox_wasm_frame* frame = sandbox_wasm_tl_frame;
  if (sandbox_wasm_guest_code_running(frame)) {
    uintptr_t addr = (uintptr_t)info->si_addr;
    wasm_rt_memory_t* memory = frame->memory;
    if (memory != NULL && memory->data != NULL &&
        addr - (uintptr_t)memory->data < SANDBOX_WASM_RESERVATION) {
      trap_from_fault(WASM_RT_TRAP_OOB);
    }
    uintptr_t lo = sandbox_wasm_tl_stack_lo;
    if (lo != 0 && addr + STACK_GUARD_BELOW >= lo && addr < lo + STACK_GUARD_ABOVE) {
      trap_from_fault(WASM_RT_TRAP_EXHAUSTION);
    }
  }
  forward_fault(sig, info, context);
}

static void on_interrupt(int sig, siginfo_t* info, void* context) {
  (void)sig;
  (void)context;
  int saved_errno = errno;
  uint64_t serial = (uint64_t)(uintptr_t)info->si_value.sival_ptr;
  sandbox_wasm_frame* target = NULL;
  if (info->si_code == SI_QUEUE && info->si_pid == getpid() && serial != 0) {
    for (sandbox_wasm_frame* f = sandbox_wasm_tl_frame; f != NULL; f = f->prev) {
      if (f->deadline_serial == serial) {
        target = f;
        break;
      }
    }
  }
  if (target != NULL) {
    target->interrupted = 1;
    sandbox_wasm_frame* inner = sandbox_wasm_tl_frame;
    if (sandbox_wasm_tl_in_host == 0 && inner->ready && inner->guest) {
      sandbox_wasm_tl_pending = 0;
      void (*hook)(int) = sandbox_wasm_race_hook;
      if (hook != NULL) hook(SANDBOX_WASM_RACE_INTERRUPT_JUMP);
      sandbox_wasm_trap_from_handler(SANDBOX_TRAP_INTERRUPTED);
    }
    sandbox_wasm_tl_pending = 1;
  }
  errno = saved_errno;
}

static void release_thread(void* alt_stack) {
  stack_t disable;
  memset(&disable, 0, sizeof disable);
  disable.ss_flags = SS_DISABLE;
  sigaltstack(&disable, NULL);
  munmap(alt_stack, ALT_STACK_SIZE);
}

/* `blocked`: a signal to block while the handler runs (0: none). */
static void install(int sig, void (*handler)(int, siginfo_t*, void*), int flags, int blocked,
                    struct sigaction* old) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | flags;
  sigemptyset(&sa.sa_mask);
  if (blocked != 0) sigaddset(&sa.sa_mask, blocked);
  if (sigaction(sig, &sa, old) != 0) {
    perror("sandbox wasm: sigaction");
    abort();
  }
}

static void init_once(void) {
  if (pthread_key_create(&g_thread_key, release_thread) != 0) {
    perror("sandbox wasm: pthread_key_create");
    abort();
  }
  /* The fault handler changes protections and write-tracking state: a deadline must not jump
   * out of it halfway (it is delivered when the handler returns, or unblocked before a trap).
   * SA_ONSTACK: a fault on the stack's guard page needs another stack to run at all. */
  /* SA_NODEFER on the faults: a trap jumps out of the handler without restoring the mask, and
   * SIGSEGV must not stay blocked. The deadline signal, in contrast, is blocked while either
   * handler runs, including its own (no SA_NODEFER): the watchdog repeats it every few
   * milliseconds, and a repeat nesting into a handler that has not jumped yet (a thread
   * descheduled, or a sanitizer runtime's work before the jump, which may take a lock) would
   * interrupt it halfway; nested repeats would fill the signal stack until the kernel kills the
   * process (runtime.h, invariant 4). */
  const int interrupt = sandbox_wasm_interrupt_signal();
  install(SIGSEGV, on_fault, SA_ONSTACK | SA_NODEFER, interrupt, &g_old_segv);
  install(SIGBUS, on_fault, SA_ONSTACK | SA_NODEFER, interrupt, &g_old_bus);
  install(interrupt, on_interrupt, SA_ONSTACK | SA_RESTART, 0, NULL);
  __atomic_store_n(&g_initialized, 1, __ATOMIC_RELEASE);
}

void sandbox_wasm_runtime_init(void) { pthread_once(&g_once, init_once); }

void sandbox_wasm_thread_init(void) {
  if (tl_thread_ready) return;
  sandbox_wasm_runtime_init();
  stack_t current;
  if (sigaltstack(NULL, &current) == 0 &&
      ((current.ss_flags & SS_DISABLE) || current.ss_size < ALT_STACK_SIZE)) {
    void* mem =
        mmap(NULL, ALT_STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
      perror("sandbox wasm: signal stack");
      abort();
    }
    stack_t alt;
    memset(&alt, 0, sizeof alt);
    alt.ss_sp = mem;
    alt.ss_size = ALT_STACK_SIZE;
    if (sigaltstack(&alt, NULL) != 0) {
      perror("sandbox wasm: sigaltstack");
      abort();
    }
    pthread_setspecific(g_thread_key, mem);
  }
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* lo = NULL;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &lo, &size) == 0) sandbox_wasm_tl_stack_lo = (uintptr_t)lo;
    pthread_attr_destroy(&attr);
  }
  tl_thread_ready = 1;
}

void wasm_rt_init(void) { sandbox_wasm_runtime_init(); }
bool wasm_rt_is_initialized(void) { return __atomic_load_n(&g_initialized, __ATOMIC_ACQUIRE); }
void wasm_rt_free(void) {}

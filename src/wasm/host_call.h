/* The contract between wasm2c-generated guest code, our wasm runtime (src/wasm) and the host
 * import implementations (src/wasi, engine glue). C-compatible: included from C and C++.
 *
 * Import functions: wasm2c 1.0.32 calls each import as a global C function
 * `Z_<module>Z_<name>(struct Z_<module>_instance_t* ctx, ...)`. The host passes, for every
 * imported module, a context pointer chosen by the host (see sandbox_wasm_module_descriptor);
 * import implementations cast it back to their own type.
 *
 * Traps: an import stops the guest by calling sandbox_wasm_trap(code), which longjmps to the
 * innermost guest call (C++ destructors in the import's frame are skipped: keep no live RAII
 * objects at that point). Codes below 100 are wasm_rt_trap_t values; ours start at 100.
 *
 * Interrupts: an import that may block or run long brackets its work with
 * sandbox_wasm_host_enter()/sandbox_wasm_host_leave(), so a deadline interrupt that arrives
 * meanwhile is deferred to the leave (which then traps) instead of longjmp-ing out of host code.
 */
#ifndef SANDBOX_WASM_HOST_CALL_H_
#define SANDBOX_WASM_HOST_CALL_H_

#include <stdint.h>

#include <wasm-rt.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  SANDBOX_TRAP_EXIT = 100,          /* proc_exit; the exit code is in sandbox_wasm_exit_code() */
  SANDBOX_TRAP_OUT_OF_FUEL = 101,   /* fuel exhausted */
  SANDBOX_TRAP_INTERRUPTED = 102,   /* wall-clock deadline (asynchronous interrupt) */
  SANDBOX_TRAP_OUTPUT_LIMIT = 103,  /* stdout/stderr capture over the output limit */
  SANDBOX_TRAP_UNSUPPORTED = 104,   /* an import the host does not provide was called */
  SANDBOX_TRAP_HOST_ERROR = 105,    /* a host import failed in a way the guest cannot handle */
};

/* Never returns: unwinds to the innermost guest call with `code`. */
__attribute__((noreturn)) void sandbox_wasm_trap(uint32_t code);

/* Records the exit code of proc_exit before trapping with SANDBOX_TRAP_EXIT. */
void sandbox_wasm_set_exit_code(uint32_t code);
uint32_t sandbox_wasm_exit_code(void);

void sandbox_wasm_host_enter(void);
void sandbox_wasm_host_leave(void);

/* Like sandbox_wasm_trap, with a message for the embedder (copied; cut to 255 bytes). It is
 * reported in the Trap's message instead of the code's default text. */
__attribute__((noreturn)) void sandbox_wasm_trap_with_message(uint32_t code, const char* message);

/* The innermost guest call on this thread (the instance whose code called the running import),
 * or NULL outside guest calls: its linear memory (NULL if it has none), and the
 * sandbox::wasm::Instance* behind it (as void*). */
wasm_rt_memory_t* sandbox_wasm_current_memory(void);
void* sandbox_wasm_current_instance(void);

#ifdef __cplusplus
}
#endif

#endif /* SANDBOX_WASM_HOST_CALL_H_ */

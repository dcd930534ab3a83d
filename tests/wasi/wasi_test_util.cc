#include "wasi_test_util.h"

namespace sandbox::testing_wasi {
namespace {

thread_local sigjmp_buf* trap_target = nullptr;
thread_local std::uint32_t trap_code = 0;
thread_local std::uint32_t exit_code = 0;

}  // namespace

std::optional<std::uint32_t> catch_trap(void (*f)(void*), void* arg) {
  sigjmp_buf buf;
  sigjmp_buf* saved = trap_target;
  trap_target = &buf;
  if (sigsetjmp(buf, 0) != 0) {
    trap_target = saved;
    return trap_code;
  }
  f(arg);
  trap_target = saved;
  return std::nullopt;
}

}  // namespace sandbox::testing_wasi

// Stand-ins for the trap primitives of sandbox_wasm (src/wasm/host_call.h), so the imports can
// be exercised without a Wasm instance: a trap longjmps to the innermost catch_trap().
extern "C" {
void sandbox_wasm_trap(uint32_t code) {
  sandbox::testing_wasi::trap_code = code;
  siglongjmp(*sandbox::testing_wasi::trap_target, 1);
}
void sandbox_wasm_trap_with_message(uint32_t code, const char*) { sandbox_wasm_trap(code); }
void sandbox_wasm_set_exit_code(uint32_t code) { sandbox::testing_wasi::exit_code = code; }
uint32_t sandbox_wasm_exit_code(void) { return sandbox::testing_wasi::exit_code; }
void sandbox_wasm_host_enter(void) {}
void sandbox_wasm_host_leave(void) {}
}

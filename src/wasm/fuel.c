/* The `sandbox.fuel_exhausted` import the fuel pass adds: called by guest code when its `fuel`
 * global goes negative. The context is the instance's sandbox_wasm_fuel_context. */
#define _GNU_SOURCE
#include <stdint.h>

#include "wasm/host_call.h"
#include "wasm/runtime.h"

struct Z_sandbox_instance_t;

void Z_sandboxZ_fuel_exhausted(struct Z_sandbox_instance_t* instance) {
  sandbox_wasm_fuel_context* ctx = (sandbox_wasm_fuel_context*)instance;
  if (ctx != NULL && ctx->refill != NULL && ctx->fuel != NULL) {
    /* The grant is booked before leaving host code: a deadline that fires at the leave must
     * not lose fuel the handler already handed out (fuel_remaining() reports it). */
    sandbox_wasm_host_enter();
    uint64_t more = ctx->refill(ctx->host);
    if (more > (uint64_t)INT64_MAX - 1) more = (uint64_t)INT64_MAX - 1;
    if (more > 0) {
      ctx->refilled += more;
      *ctx->fuel += (int64_t)more;
    }
    sandbox_wasm_host_leave();
    if (more > 0 && *ctx->fuel >= 0) return;
  }
  sandbox_wasm_trap(SANDBOX_TRAP_OUT_OF_FUEL);
}

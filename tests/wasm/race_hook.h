// Delivers a deadline interrupt at one of the runtime's race points (sandbox_wasm_race_hook,
// src/wasm/runtime.h): the signal a watchdog could send at that instant, sent by the thread to
// itself so it arrives exactly there. The innermost guest call must have a deadline armed
// (any timeout: the signal carries its serial).
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

// Fires once, at the next time the runtime reaches `point` (SANDBOX_WASM_RACE_*); 0 disarms.
void sandbox_test_arm_race(int point);
// Whether the armed race point was reached (and the signal sent) since the last arm.
int sandbox_test_race_fired(void);
// Whether the deadline signal was blocked on the thread when the race point fired.
int sandbox_test_race_signal_blocked(void);

#ifdef __cplusplus
}
#endif

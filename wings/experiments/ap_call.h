/* SPDX-License-Identifier: MIT */
/* Run a function on an online AP (the flush probe's sweeps, the
 * victims' loops): the BSP posts it and sends the AP the wing's
 * interrupt (VEC_WING, kernel/trap.h), which the AP takes in its idle loop's HLT and runs the
 * function in, interrupts off; then it says so and wakes the BSP. The
 * idle loop itself (smp/ap_entry.c) is untouched: its instructions are
 * on the timed paths. */
#ifndef APSTART_AP_CALL_H
#define APSTART_AP_CALL_H

#include <stdbool.h>
#include <stdint.h>

struct cpu;

typedef void (*ap_call_fn)(struct cpu *c, void *arg);

/* BSP: c must be CPU_ONLINE and idle (no call of its own running).
 * False if the wake-up IPI could not be sent. */
bool ap_call_start(struct cpu *c, ap_call_fn fn, void *arg);
/* BSP: has c's call returned? */
bool ap_call_done(const struct cpu *c);
/* BSP: wait for it, at most timeout_us; false on timeout. */
bool ap_call_wait(const struct cpu *c, uint64_t timeout_us);
/* The AP, on VEC_WING (the wing's .interrupt, app/wing.h): runs the
 * call posted to it, if any. */
void ap_call_interrupt(void);

#endif

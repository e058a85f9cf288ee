/* SPDX-License-Identifier: MIT */
/* Run a function on an online AP (the flush probe's sweeps, the
 * victims' loops): the BSP posts it and wakes the AP, which runs it with
 * interrupts off from its idle loop and says when it returned. */
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

/* AP, from its idle loop on REQ_CALL. */
void ap_call_run(struct cpu *c);

#endif

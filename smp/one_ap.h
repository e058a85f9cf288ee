/* SPDX-License-Identifier: MIT */
/* Waking one AP and putting it back to sleep: INIT-SIPI-SIPI and the
 * offline request, each timed on the BSP's TSC. */
#ifndef APSTART_ONE_AP_H
#define APSTART_ONE_AP_H

#include <stdbool.h>
#include <stdint.h>

#include "smp/wake.h"

struct cpu;

/* Send one IPI to c; an ICR that stays busy is reported. after_write
 * (NULL for none): see lapic_send_ipi_then(). */
bool ap_send_ipi(struct cpu *c, uint32_t icr, const char *what,
		 void (*after_write)(void));
/* INIT, then STARTUP IPIs, then wait for the AP to report online. */
bool ap_start(struct cpu *c, const struct wake_config *w, struct start_phases *ph);

/* The parts of a start, for smp/many_aps.c's many at once: */
/* Clear c's slot and marks, mark it STARTING (before the start's TSC). */
void ap_prepare(struct cpu *c);
/* Has c entered the trampoline? (its slot, or in a serial start the
 * header's count of real-mode entries) */
bool ap_entered(const struct cpu *c, bool serial);
/* Waiting ended without c online: give up on it by compare-and-exchange
 * (false: it made it after all, seen now), then wake it again up to
 * sipi_retry times (ap_wake_again(); false as soon as it comes online);
 * after the last, report its last stage and put it back into
 * wait-for-SIPI (true). in_real: c is known to have entered real mode
 * (counted, no slot written yet). */
bool ap_give_up(struct cpu *c, const struct wake_config *w, bool in_real);
/* The AP given up on (timed out) gets INIT-SIPI-SIPI again, retry
 * number attempt of sipi_retry; in_real as for ap_give_up(), for the
 * stage it reports. */
void ap_wake_again(struct cpu *c, const struct wake_config *w, uint8_t vector,
		   uint32_t attempt, bool in_real);
/* The figures of c's start from its marks and slot (t0 = marks.start). */
void ap_start_figures(const struct cpu *c, struct start_phases *ph);
/* The last stage c reached: its slot's, or real mode (1) when in_real
 * and the slot has none yet. */
uint32_t ap_last_stage(const struct cpu *c, bool in_real);
/* INIT only: put the AP into wait-for-SIPI (firmware may leave APs
 * spinning, OVMF does). */
void ap_send_init(struct cpu *c, const struct wake_config *w);
/* The STARTUP IPIs of one bring-up (after the INIT). */
void ap_send_startup_ipis(struct cpu *c, const struct wake_config *w, uint8_t vector);
/* Ask an online AP to go offline (park= decides how); wait until it has
 * reported dead and then until it has settled. */
bool ap_offline(struct cpu *c, const struct wake_config *w, struct offline_times *t);
/* The halves of ap_offline(), for smp/many_aps.c: ask (no wait), and on
 * a timeout: report c failed, INIT it (false). */
void ap_request_park(struct cpu *c, uint32_t req);
bool ap_offline_failed(struct cpu *c, const struct wake_config *w, const char *what);
/* End of run: ask an online AP to halt without a flush; wait for it. */
bool ap_halt(struct cpu *c, const struct wake_config *w);

const char *ap_stage_name(uint32_t stage);

#endif

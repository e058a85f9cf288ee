/* SPDX-License-Identifier: MIT */
/* INIT-SIPI-SIPI, written once for one AP and for many, and its failure
 * path: smp/one_ap.c starts one AP with it, smp/many_aps.c a set. */
#ifndef APSTART_SIPI_H
#define APSTART_SIPI_H

#include <stdbool.h>
#include <stdint.h>

#include "smp/wake.h"

struct cpu;

/* The APs of one wake-up and how they are reached (enum wake_target,
 * smp/wake.h). */
struct wake_set {
	struct cpu *const *cpus;
	uint32_t n;
	enum wake_target target;
};

/* Send one IPI to c; an ICR that stays busy is reported. after_write
 * (NULL for none): see lapic_send_ipi_then(). */
bool ap_send_ipi(struct cpu *c, uint32_t icr, const char *what, void (*after_write)(void));

/* The STARTUP vector: the trampoline's page number. */
uint8_t sipi_vector(void);
/* Clear c's slot and marks, mark it STARTING (before the start's TSC). */
void ap_prepare(struct cpu *c);
/* INIT assert to every AP of s, init_delay_us, INIT de-assert; each AP's
 * marks.init_assert and init_deassert are the BSP's TSC after each. */
void ap_send_init_many(const struct wake_set *s, const struct wake_config *w);
/* INIT only, to one AP: into wait-for-SIPI (firmware may leave APs
 * spinning, OVMF does; a parked AP after park=init; a failed one). */
void ap_send_init(struct cpu *c, const struct wake_config *w);
/* The STARTUP IPIs after the INIT, sipi_count of them (auto: the second
 * only to those not in yet), Linux's waits once per round, ICR and error
 * status checked per IPI; an AP whose IPI failed gets no more.
 * marks.sipi1/sipi2 are the BSP's TSC just before each. */
void ap_send_startups_many(const struct wake_set *s, const struct wake_config *w, uint8_t vector);
/* The same to one AP, alone. */
void ap_send_startups(struct cpu *c, const struct wake_config *w, uint8_t vector);

/* Has c entered the trampoline? (its slot, or, woken as WAKE_ONE, the
 * header's count of real-mode entries) */
bool ap_entered(const struct cpu *c, enum wake_target target);
/* The last stage c reached: its slot's, or real mode (1) when in_real
 * and the slot has none yet. */
uint32_t ap_last_stage(const struct cpu *c, bool in_real);
const char *ap_stage_name(uint32_t stage);

/* Waiting ended without c online: give up on it (false: it made it after
 * all), wake it again up to sipi_retry times (false once it is online),
 * then report its last stage and put it into wait-for-SIPI (true).
 * in_real: c is known to have entered real mode (no slot written yet). */
bool ap_give_up(struct cpu *c, const struct wake_config *w, bool in_real);

#endif

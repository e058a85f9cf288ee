/* SPDX-License-Identifier: MIT */
/* What platforms throw at a run besides the work: NMIs and stray
 * interrupts, counted against the CPU they hit (struct cpu), reported by
 * the BSP as @warn records, and used to mark the samples whose timed
 * window they fell into. */
#ifndef APSTART_EVENTS_H
#define APSTART_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

struct cpu;

/* BSP, after smp_setup(): count events per CPU from now on. */
void events_init(void);

/* NMIs taken so far by the BSP and AP c together: a sample's window
 * contained an NMI on either CPU if this moved across it. */
uint32_t events_window_nmis(const struct cpu *c);

/* BSP, from ordinary code (never from a handler): one @warn record per
 * CPU with NMIs or stray interrupts not reported yet. */
void events_report(void);

/* Totals for @end: every NMI and stray interrupt on any CPU. */
uint32_t events_nmi_total(void);
uint32_t events_stray_total(void);

#endif

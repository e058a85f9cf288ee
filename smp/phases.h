/* SPDX-License-Identifier: MIT */
/* Where one bring-up's time goes: the BSP's steps and the AP's (enum
 * ap_mark) as one chain of phases from the first INIT to the BSP seeing
 * the AP online, each the time since the one before; @phase and the
 * per-phase table come from here. */
#ifndef APSTART_PHASES_H
#define APSTART_PHASES_H

#include <stdbool.h>
#include <stdint.h>

#include "smp/smp.h"

/* The chain, in order; PH_SIPI2 is outside it (see below). Their names,
 * in this order, are lib/phase_names.c's (shared with aplog). */
enum phase {
	PH_INIT_ASSERT,   /* BSP: start -> INIT assert sent (ICR idle) */
	PH_INIT_DEASSERT, /* BSP: -> INIT de-assert sent (after init_delay_us) */
	PH_SIPI,          /* BSP: -> first STARTUP IPI written to the ICR */
	PH_REAL,          /* AP:  -> first real-mode instruction after cli[/wbinvd]
			     (cross-CPU) */
	PH_PROTECTED,     /* AP:  -> protected mode */
	PH_LONG,          /* AP:  -> long mode */
	PH_C_ENTRY,       /* AP:  -> ap_entry() on its stack */
	PH_TABLES,        /* AP:  -> kernel GDT/IDT loaded */
	PH_LAPIC,         /* AP:  -> local APIC enabled */
	PH_ONLINE,        /* AP:  -> its online mark */
	PH_SEEN,          /* BSP: -> saw the mark (cross-CPU) */
	/* BSP: first -> second STARTUP IPI written, when one was sent. The
	 * AP runs meanwhile, so it overlaps the AP's phases: not part of
	 * the chain (the chain's phases add up to the start's total). */
	PH_SIPI2,
	PHASES
};
#define PH_CHAIN PH_SIPI2 /* phases [0, PH_CHAIN) add up to the total */

/* The tick arithmetic of every figure: ap_tsc (read on c) minus bsp_tsc
 * (read on the BSP), or TICKS_NA when c's TSC is not known to be
 * synchronised (the warp test, smp/tsc_sync.c) or the difference is
 * negative; */
int64_t tsc_cross_cpu(const struct cpu *c, uint64_t ap_tsc, uint64_t bsp_tsc);
/* later minus earlier, both read on one CPU; TICKS_NA if negative. */
int64_t tsc_same_cpu(uint64_t later, uint64_t earlier);
/* The same for two of an AP's marks, either of which may not have been
 * taken (0): then TICKS_NA. */
int64_t tsc_marks_diff(uint64_t later, uint64_t earlier);

/* Whether the per-phase marks are taken (the BSP's and the AP's before
 * its online mark): 1 but in make MARKS=0 builds, which exist for make
 * marks-cost to measure them; there only each window's ends are read. */
#ifndef APSTART_MARKS
#define APSTART_MARKS 1
#endif

/* The phases of c's last start (c->marks, c->slot), in ticks: signed,
 * TICKS_NA when meaningless (cross-CPU with an unsynchronised TSC, a
 * negative difference, a step not taken: PH_SIPI2 without a second SIPI). */
void phases_compute(const struct cpu *c, int64_t out[PHASES]);
/* Room for the @phase records of this many starts (at most 8192; the
 * rest are printed as they come), from free RAM: once for the first
 * bring-up, once for the cycles. */
void phases_store_init(uint32_t starts);
/* c's last start: its @phase records kept for phases_flush(), its figures
 * into the per-phase table (not cycle 0's, the first bring-up). With nmi
 * (its window held one) the records say nmi=1 and the table leaves it out. */
void phases_record(const struct cpu *c, uint32_t cycle, bool nmi);
/* Print the records kept so far. */
void phases_flush(void);
/* phases_flush(), then the per-phase table of every cycle so far
 * (serial), and the slowest phase by mean (screen and serial). */
void phases_report(void);

#endif
